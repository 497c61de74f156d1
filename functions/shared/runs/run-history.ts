/**
 * The Lambdas' run history: the reports of runs that changed something (after-run.ts decides),
 * kept in the run-history bucket (WARDEN_RUN_HISTORY_BUCKET, declared in sst.config.ts with a
 * lifecycle expiry) so that a removal can be undone later: `warden restore s3://…` and the Enforce
 * function's restore event read them back. How keys are laid out, and which run "latest" chooses, is
 * restore's (lib/jobs/restore/run-history.ts); the S3 client is lib/aws's, which the CLI uses too.
 * The body is the report's JSON exactly as `--json` prints it (what restore reads from a file), every
 * string redacted; the trigger and correlation id ride as object metadata too.
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { s3Objects } from "../../../lib/aws/s3-objects.ts";
import { runKey, runReader, type RunReader } from "../../../lib/jobs/index.ts";
import { redactStrings } from "../../../lib/redact/index.ts";
import { requireEnv } from "../config/settings.ts";
import type { AnyReport, RunLabels } from "./outcome.ts";

export interface RunHistoryOptions {
  client?: S3Client;
  /** The bucket; WARDEN_RUN_HISTORY_BUCKET when first needed by default. */
  bucket?: () => string;
}

export interface RunHistory extends RunReader {
  /**
   * Stores an applying run's report and returns where (`s3://bucket/key`); a dry run changed nothing and
   * is not kept. The key's time is the report's `finishedAt`, so a run's end attempted again (durable/job.ts)
   * writes the same object, not a second copy. `signal` bounds the upload (after-run.ts gives it a slice of
   * the invocation's time).
   */
  store(report: AnyReport, labels: RunLabels, opts?: { signal?: AbortSignal }): Promise<string | undefined>;
}

export function runHistory(opts: RunHistoryOptions = {}): RunHistory {
  const bucket = opts.bucket ?? (() => requireEnv("WARDEN_RUN_HISTORY_BUCKET"));
  const objects = s3Objects(opts.client);
  return {
    ...runReader(objects, bucket),
    async store(report, labels, { signal } = {}) {
      if (report.dryRun) return undefined;
      const Bucket = bucket();
      const Key = runKey(report.job, labels.trigger, new Date(report.finishedAt), labels.correlationId);
      const metadata = { trigger: labels.trigger, "correlation-id": labels.correlationId, stage: labels.stage };
      await objects.put(Bucket, Key, JSON.stringify(redactStrings(report), null, 2), metadata, signal);
      return `s3://${Bucket}/${Key}`;
    },
  };
}

/** The process's run history: the bucket WARDEN_RUN_HISTORY_BUCKET names, through one client. */
export const processRunHistory: RunHistory = runHistory();
