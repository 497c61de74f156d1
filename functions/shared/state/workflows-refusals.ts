/**
 * The changes the last Workflows run n8n refused for good (lib/jobs/workflows/refused-before.ts), under
 * which policy and when: one item of the claims table ("workflows:refused", no expiresAt, so DynamoDB's
 * TTL never deletes it), written after each run of the Workflows function, dry or applying
 * (runs/after-run.ts), and read before the next (runs/scheduled.ts), whose guard does not count those
 * changes (runs/run-job.ts passes them to the job). No other function reads it: a chat command's
 * workflows run is a person's, and counts every change (the CLI keeps no record either).
 */
import { errorText } from "../../../lib/jobs/index.ts";
import { refusalsOf, type LastRefusals, type WorkflowsReport } from "../../../lib/jobs/workflows/index.ts";
import { logger } from "../lambda/logger.ts";
import { sliceSignal, type TimeLeft } from "../lambda/time-left.ts";
import type { RunLabels } from "../runs/outcome.ts";
import type { ClaimsOptions } from "./claims.ts";
import { readBeforeRun, recordItem } from "./record-item.ts";

export const REFUSALS_KEY = "workflows:refused";

/** Whether the run keeps the record: the Workflows function's, the schedule's or a console run (a chat command's does not). */
export function keepsRefusals(labels: Pick<RunLabels, "job" | "trigger">): boolean {
  return labels.job === "workflows" && (labels.trigger === "schedule" || labels.trigger === "console");
}

/** The longest re-reading and writing the record after a run may take: one GetItem, and one PutItem of at most some 200 KB. */
const TIMEOUT_MS = 5_000;

export interface RefusalsStore {
  /** Undefined before the first run. Throws when the table cannot be read, or holds something else under the key. */
  read(signal?: AbortSignal): Promise<LastRefusals | undefined>;
  write(record: LastRefusals, signal?: AbortSignal): Promise<void>;
}

export function dynamoRefusals(opts: Pick<ClaimsOptions, "client" | "table"> = {}): RefusalsStore {
  const item = recordItem(REFUSALS_KEY, opts);
  return {
    async read(signal) {
      const Item = await item.get(signal);
      if (!Item) return undefined;
      const [policySha256, at, refused] = [Item["policySha256"]?.S, Item["at"]?.S, Item["refused"]?.L?.map((key) => key.S)];
      if (!policySha256 || !at || !refused || refused.some((key) => typeof key !== "string")) {
        throw new Error(`the claims table's ${REFUSALS_KEY} item is not what the Workflows function writes: delete it (the next run writes it again)`);
      }
      return { policySha256, at, refused: refused as string[] };
    },
    write: ({ policySha256, at, refused }, signal) => item.put({ policySha256: { S: policySha256 }, at: { S: at }, refused: { L: refused.map((key) => ({ S: key })) } }, signal),
  };
}

/**
 * The record, for the run about to start; undefined when there is none, or it cannot be read: the run goes on
 * without it (every change counted, the guard's safe side), saying so.
 */
export function refusalsForRun(store: RefusalsStore, timeLeft: TimeLeft): Promise<LastRefusals | undefined> {
  return readBeforeRun((signal) => store.read(signal), "the changes n8n refused the last run", "this run's guard counts every change, those included", timeLeft);
}

/**
 * Keeps what `report` leaves for the next run, with what the record held that this run did not try
 * (refusalsOf): it is read again first, and not written over when it cannot be read. Not kept (no time
 * left, the table failing), the next run counts the changes refused before: logged as an error, and the
 * run is as it was.
 */
export async function rememberRefusals(store: RefusalsStore, report: WorkflowsReport, timeLeft: TimeLeft): Promise<void> {
  const signal = report.policy && sliceSignal("remembering the changes n8n refused", TIMEOUT_MS, timeLeft);
  if (!signal) return;
  try {
    const record = refusalsOf(report, await store.read(signal));
    if (record) await store.write(record, signal);
  } catch (err) {
    logger.error("remembering the changes n8n refused failed", { error: errorText(signal.reason ?? err) });
  }
}
