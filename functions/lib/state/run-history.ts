/**
 * The reports of runs that changed something (runs/after-run.ts decides), kept in the run-history bucket
 * (WARDEN_RUN_HISTORY_BUCKET, declared in sst.config.ts with a lifecycle expiry) so that a removal can
 * be undone later: `warden restore s3://…` and the Enforce function's restore event read them back. Keys are
 * `runs/<job>/<UTC time, basic ISO 8601>-<correlation id>.json`, so a job's keys sort by time and
 * "latest" is the greatest. The body is the report's JSON exactly as `--json` prints it (what restore
 * reads from a file), every string redacted; the trigger and correlation id ride as object metadata.
 */
import { GetObjectCommand, paginateListObjectsV2, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { JobName } from "../../../lib/jobs/report.ts";
import { parseRestoreTextFrom, type RestoreInput } from "../../../lib/jobs/restore/input.ts";
import { redactStrings } from "../../../lib/redact/index.ts";
import { requireEnv } from "../config/settings.ts";
import type { AnyReport, RunLabels } from "../runs/outcome.ts";

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
  /** The stored report's JSON text: `ref` is `s3://bucket/key`, or "latest" for `job`'s most recent kept. */
  read(ref: string, job: JobName): Promise<{ location: string; text: string }>;
}

export function runKey(job: JobName, finishedAt: Date, correlationId: string): string {
  // 2025-01-02T03:04:05.678Z → 20250102T030405.678Z: no colons to quote in a shell or a URL.
  const time = finishedAt.toISOString().replace(/[-:]/g, "");
  return `runs/${job}/${time}-${correlationId.replace(/[^\w.-]/g, "_")}.json`;
}

export function parseRunRef(ref: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(ref);
  if (!match) throw new RunHistoryError(`a stored run is named s3://<bucket>/<key> or "latest", not ${JSON.stringify(ref.slice(0, 100))}`);
  return { bucket: match[1]!, key: match[2]! };
}

export function runHistory(opts: RunHistoryOptions = {}): RunHistory {
  const bucket = opts.bucket ?? (() => requireEnv("WARDEN_RUN_HISTORY_BUCKET"));
  let client = opts.client;
  const s3 = () => (client ??= new S3Client({}));

  async function latest(job: JobName): Promise<{ bucket: string; key: string }> {
    const Bucket = bucket();
    let greatest: string | undefined;
    // Listed in key order, one page after another: the last key is the latest run.
    for await (const page of paginateListObjectsV2({ client: s3() }, { Bucket, Prefix: `runs/${job}/` })) {
      for (const { Key } of page.Contents ?? []) if (Key && (!greatest || Key > greatest)) greatest = Key;
    }
    if (!greatest) throw new RunHistoryError(`no stored ${job} run in s3://${Bucket}/runs/${job}/ (runs are kept there for a limited time)`);
    return { bucket: Bucket, key: greatest };
  }

  return {
    async store(report, labels, { finishedAt = new Date(), signal } = {}) {
      if (report.dryRun) return undefined;
      const Bucket = bucket();
      const Key = runKey(report.job, finishedAt, labels.correlationId);
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
      const where = ref === "latest" ? await latest(job) : parseRunRef(ref);
      const location = `s3://${where.bucket}/${where.key}`;
      try {
        const { Body } = await s3().send(new GetObjectCommand({ Bucket: where.bucket, Key: where.key }));
        if (!Body) throw new RunHistoryError(`${location} is empty`);
        return { location, text: await Body.transformToString("utf8") };
      } catch (err) {
        if (err instanceof RunHistoryError) throw err;
        throw new RunHistoryError(`reading ${location} failed: ${(err as Error).name}: ${(err as Error).message}`, { cause: err });
      }
    },
  };
}

/** The process's run history: the bucket WARDEN_RUN_HISTORY_BUCKET names, through one client. */
export const processRunHistory: RunHistory = runHistory();

/** A stored enforce run's removals, for restore: `ref` is `s3://bucket/key` or "latest". An unusable one is named. */
export async function storedRestoreInput(history: RunHistory, ref: string): Promise<RestoreInput> {
  const { location, text } = await history.read(ref, "enforce");
  return parseRestoreTextFrom(location, text);
}
