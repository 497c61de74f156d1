/**
 * What the sweep needs to judge the event-driven paths (functions/shared/runs/event-coverage.ts), as small
 * items of the claims table, none with an expiresAt (TTL never deletes them):
 *
 * - `heard:stream`, `heard:system-hook`: when GitLab last delivered to the Events endpoint (written by
 *   the Events function, after the request's token was checked; its own clock, never the body's); a
 *   stream that has delivered once is judged on its own deliveries from then on;
 * - `sweep:judged`: how far the last sweep judged (its window's end), whether event-driven enforcement
 *   applied then, and since when the Events endpoint has been on (written by the Enforce function).
 *
 * Each function's grant in sst.config.ts names exactly these keys.
 */
import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { dynamoClient } from "./dynamo-client.ts";
import { requireEnv } from "../config/settings.ts";
import type { ClaimsOptions } from "./claims.ts";

export type Sender = "stream" | "system-hook";
export const HEARD_KEYS: Record<Sender, string> = { stream: "heard:stream", "system-hook": "heard:system-hook" };
export const SWEEP_KEY = "sweep:judged";

export interface SweepRecord {
  /** The end of the last judged window (ISO 8601): the next sweep judges strays made after it. */
  judgedTo: string;
  /** Whether event-driven enforcement was deployed and applying at that sweep. */
  covered: boolean;
  /** The first sweep that found the Events endpoint on (ISO 8601); null while it is off. */
  eventsSince: string | null;
}

export interface CoverageStore {
  /** Records a delivery from `sender` at `at` (ISO 8601). */
  delivered(sender: Sender, at: string): Promise<void>;
  /**
   * The stream's newest delivery, once it has delivered at all; before that, the system hooks'; null
   * when neither is recorded. Only the stream carries share events: a system hook (any push, any project
   * created) must not keep a stream that stopped from being found silent.
   */
  lastDelivery(): Promise<string | null>;
  previousSweep(): Promise<SweepRecord | undefined>;
  recordSweep(record: SweepRecord): Promise<void>;
}

export function dynamoCoverage(opts: Pick<ClaimsOptions, "client" | "table"> = {}): CoverageStore {
  const table = opts.table ?? (() => requireEnv("WARDEN_CLAIMS_TABLE"));
  let client = opts.client;
  const get = async (key: string) => {
    client ??= dynamoClient();
    return (await client.send(new GetItemCommand({ TableName: table(), Key: { id: { S: key } }, ConsistentRead: true }))).Item;
  };
  const put = async (key: string, fields: Record<string, string>) => {
    client ??= dynamoClient();
    const item = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, { S: value }]));
    await client.send(new PutItemCommand({ TableName: table(), Item: { id: { S: key }, ...item } }));
  };
  const time = (value: string | undefined) => (value !== undefined && Number.isFinite(Date.parse(value)) ? value : null);
  return {
    delivered: (sender, at) => put(HEARD_KEYS[sender], { at }),
    async lastDelivery() {
      const [stream, hooks] = await Promise.all([HEARD_KEYS.stream, HEARD_KEYS["system-hook"]].map(async (key) => time((await get(key))?.["at"]?.S)));
      return stream ?? hooks ?? null;
    },
    async previousSweep() {
      const item = await get(SWEEP_KEY);
      const judgedTo = time(item?.["judgedTo"]?.S);
      if (!item || judgedTo === null) return undefined;
      return { judgedTo, covered: item["covered"]?.S === "true", eventsSince: time(item["eventsSince"]?.S) };
    },
    recordSweep: (r) => put(SWEEP_KEY, { judgedTo: r.judgedTo, covered: String(r.covered), ...(r.eventsSince ? { eventsSince: r.eventsSince } : {}) }),
  };
}
