/**
 * The reports of runs that changed something (runs/after-run.ts decides), kept in the run-history bucket
 * (WARDEN_RUN_HISTORY_BUCKET, declared in sst.config.ts with a lifecycle expiry) so that a removal can
 * be undone later: `warden restore s3://…` and the Enforce function's restore event read them back. Keys are
 * `runs/<job>/<trigger>/<UTC time, basic ISO 8601>-<correlation id>.json`: a trigger's keys sort by
 * time, and a sweep's removals are not hidden by the watch batch after it. "latest" is the latest
 * sweep (the schedule's, the console's or chat's: each examines the whole scope), "latest:<trigger>"
 * the latest run of that trigger. Runs kept before the trigger was in the key
 * (`runs/<job>/<time>-<id>.json`) are still read by their s3:// name, but "latest" does not choose
 * among them: only a request per key for its metadata would tell a sweep from a watch batch there,
 * and they expire with the bucket's lifecycle. The body is the report's JSON exactly as `--json`
 * prints it (what restore reads from a file), every string redacted; the trigger and correlation id
 * ride as object metadata too.
 */
import { GetObjectCommand, paginateListObjectsV2, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { JobName } from "../../../lib/jobs/report.ts";
import { parseRestoreTextFrom, type RestoreInput } from "../../../lib/jobs/restore/input.ts";
import { redactStrings } from "../../../lib/redact/index.ts";
import { requireEnv } from "../config/settings.ts";
import type { AnyReport, RunLabels, Trigger } from "../runs/outcome.ts";

export class RunHistoryError extends Error {
  override name = "RunHistoryError";
}

export interface RunHistoryOptions {
  client?: S3Client;
  /** The bucket; WARDEN_RUN_HISTORY_BUCKET when first needed by default. */
  bucket?: () => string;
}

export interface RunHistory {
  /**
   * Stores an applying run's report and returns where (`s3://bucket/key`); a dry run changed nothing and
   * is not kept. `signal` bounds the upload (runs/after-run.ts gives it a slice of the invocation's time).
   */
  store(report: AnyReport, labels: RunLabels, opts?: { finishedAt?: Date; signal?: AbortSignal }): Promise<string | undefined>;
  /**
   * The stored report's JSON text: `ref` is `s3://bucket/key`, "latest" (`job`'s latest sweep) or
   * "latest:<trigger>". `chosen` says which run a "latest" chose, e.g. "the latest sweep (trigger schedule)".
   */
  read(ref: string, job: JobName): Promise<{ location: string; text: string; chosen?: string }>;
}

const TRIGGERS = ["schedule", "console", "chat", "watch", "event"] as const satisfies readonly Trigger[];
/** The triggers of a sweep: a run over the whole scope. The watch and the stream enforce a few subjects each. */
const SWEEP_TRIGGERS: readonly Trigger[] = ["schedule", "console", "chat"];

export function runKey(job: JobName, trigger: Trigger, finishedAt: Date, correlationId: string): string {
  // 2025-01-02T03:04:05.678Z → 20250102T030405.678Z: no colons to quote in a shell or a URL.
  const time = finishedAt.toISOString().replace(/[-:]/g, "");
  return `runs/${job}/${trigger}/${time}-${correlationId.replace(/[^\w.-]/g, "_")}.json`;
}

/** A stored run's name: where it is, or the triggers among whose runs "latest" chooses (and how to say it). */
export type RunRef = { bucket: string; key: string } | { triggers: readonly Trigger[]; what: string };

const NAMES = `s3://<bucket>/<key>, "latest" (the latest sweep) or "latest:<trigger>" (${TRIGGERS.join(", ")})`;

export function parseRunRef(ref: string): RunRef {
  if (ref === "latest") return { triggers: SWEEP_TRIGGERS, what: "the latest sweep" };
  const trigger = /^latest:(.*)$/s.exec(ref)?.[1];
  if (trigger !== undefined) {
    if (!(TRIGGERS as readonly string[]).includes(trigger)) throw new RunHistoryError(`a stored run is named ${NAMES}, not ${JSON.stringify(ref.slice(0, 100))}`);
    return { triggers: [trigger as Trigger], what: `the latest ${trigger} run` };
  }
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(ref);
  if (!match) throw new RunHistoryError(`a stored run is named ${NAMES}, not ${JSON.stringify(ref.slice(0, 100))}`);
  return { bucket: match[1]!, key: match[2]! };
}

/** Throws, naming the forms, when `ref` is not a stored run's name. */
export function checkRunRef(ref: string): void {
  parseRunRef(ref);
}

export function runHistory(opts: RunHistoryOptions = {}): RunHistory {
  const bucket = opts.bucket ?? (() => requireEnv("WARDEN_RUN_HISTORY_BUCKET"));
  let client = opts.client;
  const s3 = () => (client ??= new S3Client({}));

  /** The latest run of these triggers: the greatest time among each trigger's greatest key. */
  async function latest(job: JobName, { triggers, what }: Extract<RunRef, { triggers: unknown }>): Promise<{ bucket: string; key: string; chosen: string }> {
    const Bucket = bucket();
    let found: { key: string; name: string; trigger: Trigger } | undefined;
    for (const trigger of triggers) {
      const prefix = `runs/${job}/${trigger}/`;
      // Listed in key order, one page after another: a trigger's keys sort by time.
      for await (const page of paginateListObjectsV2({ client: s3() }, { Bucket, Prefix: prefix })) {
        for (const { Key } of page.Contents ?? []) {
          const name = Key?.slice(prefix.length);
          if (Key && name && !name.includes("/") && (!found || name > found.name)) found = { key: Key, name, trigger };
        }
      }
    }
    if (!found) {
      const where = triggers.map((t) => `s3://${Bucket}/runs/${job}/${t}/`).join(", ");
      throw new RunHistoryError(`no stored ${job} run for ${what} in ${where} (runs are kept there for a limited time; one kept before runs were stored by trigger is read by its s3:// name)`);
    }
    return { bucket: Bucket, key: found.key, chosen: `${what} (trigger ${found.trigger})` };
  }

  return {
    async store(report, labels, { finishedAt = new Date(), signal } = {}) {
      if (report.dryRun) return undefined;
      const Bucket = bucket();
      const Key = runKey(report.job, labels.trigger, finishedAt, labels.correlationId);
      await s3().send(
        new PutObjectCommand({
          Bucket,
          Key,
          Body: JSON.stringify(redactStrings(report), null, 2),
          ContentType: "application/json",
          Metadata: { trigger: labels.trigger, "correlation-id": labels.correlationId, stage: labels.stage },
        }),
        { abortSignal: signal },
      );
      return `s3://${Bucket}/${Key}`;
    },

    async read(ref, job) {
      const named = parseRunRef(ref);
      const where: { bucket: string; key: string; chosen?: string } = "triggers" in named ? await latest(job, named) : named;
      const location = `s3://${where.bucket}/${where.key}`;
      try {
        const { Body } = await s3().send(new GetObjectCommand({ Bucket: where.bucket, Key: where.key }));
        if (!Body) throw new RunHistoryError(`${location} is empty`);
        return { location, text: await Body.transformToString("utf8"), ...(where.chosen ? { chosen: where.chosen } : {}) };
      } catch (err) {
        if (err instanceof RunHistoryError) throw err;
        throw new RunHistoryError(`reading ${location} failed: ${(err as Error).name}: ${(err as Error).message}`, { cause: err });
      }
    },
  };
}

/** The process's run history: the bucket WARDEN_RUN_HISTORY_BUCKET names, through one client. */
export const processRunHistory: RunHistory = runHistory();

/**
 * A stored enforce run's removals, for restore: `ref` is a name parseRunRef reads. An unusable one is
 * named; the input's source names the run (and which run a "latest" chose), for the plan to say.
 */
export async function storedRestoreInput(history: RunHistory, ref: string): Promise<RestoreInput> {
  const { location, text, chosen } = await history.read(ref, "enforce");
  const input = parseRestoreTextFrom(location, text);
  return chosen ? { ...input, source: `${input.source}, ${chosen}` } : input;
}
