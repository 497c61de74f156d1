/**
 * The run history as restore reads it, whatever keeps it: how a stored run is named and laid out, and
 * which run "latest" chooses. The reports of runs that changed something are kept (by the Lambdas,
 * functions/shared/runs/run-history.ts) under `runs/<job>/<trigger>/<UTC time, basic ISO 8601>-<correlation id>.json`:
 * a trigger's keys sort by time, and a sweep's removals are not hidden by the watch batch after it.
 * "latest" is the latest sweep (the schedule's, the console's or chat's: each examines the whole
 * scope), "latest:<trigger>" the latest run of that trigger. Runs kept before the trigger was in the
 * key (`runs/<job>/<time>-<id>.json`) are still read by their s3:// name, but "latest" does not choose
 * among them: only a request per key for its metadata would tell a sweep from a watch batch there,
 * and they expire with the bucket's lifecycle. The objects themselves are reached through a port
 * (RunObjects), which each front end fills with lib/aws's S3 client: this module imports no AWS SDK.
 */
import type { JobName } from "../report/index.ts";
import { parseRestoreTextFrom, type RestoreInput } from "./input.ts";

export class RunHistoryError extends Error {
  override name = "RunHistoryError";
}

/** Who started a run: the schedule, a person in the console, a chat command, GitLab's events (the stream), or the watch. */
export const TRIGGERS = ["schedule", "console", "chat", "watch", "event"] as const;
export type Trigger = (typeof TRIGGERS)[number];
/** The triggers of a sweep: a run over the whole scope. The watch and the stream enforce a few subjects each. */
const SWEEP_TRIGGERS: readonly Trigger[] = ["schedule", "console", "chat"];

/** The objects of a run-history bucket, as a store gives them (lib/aws/s3-objects.ts over S3). */
export interface RunObjects {
  /** Every key under `prefix`, in key order; ends with an error once `signal` is aborted. */
  keys(bucket: string, prefix: string, signal?: AbortSignal): AsyncIterable<string>;
  /** The object's text; throws when it cannot be read, or once `signal` is aborted. */
  text(bucket: string, key: string, signal?: AbortSignal): Promise<string>;
}

export interface RunReader {
  /**
   * The stored report's JSON text: `ref` is `s3://bucket/key`, "latest" (`job`'s latest sweep) or
   * "latest:<trigger>". `chosen` says which run a "latest" chose, e.g. "the latest sweep (trigger schedule)".
   */
  read(ref: string, job: JobName): Promise<{ location: string; text: string; chosen?: string }>;
  /**
   * Where `ref` names (`s3://bucket/key`), "latest" looked up, without reading the run: what a durable
   * restore records once, so that every attempt reads that run (storedRestoreInput with `chosen`).
   */
  locate(ref: string, job: JobName): Promise<{ location: string; chosen?: string }>;
}

export function runKey(job: JobName, trigger: Trigger, finishedAt: Date, correlationId: string): string {
  return `runs/${job}/${trigger}/${keyTime(finishedAt)}-${correlationId.replace(/[^\w.-]/g, "_")}.json`;
}

/** 2025-01-02T03:04:05.678Z → 20250102T030405.678Z: no colons to quote in a shell or a URL. */
const keyTime = (at: Date): string => at.toISOString().replace(/[-:]/g, "");

/** A run may be named at most this far after the reader's clock (the writer's may be ahead). */
const CLOCK_ALLOWANCE_MS = 5 * 60_000;

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

/**
 * A listing or a read that failed, by its kind alone (AccessDenied, NoSuchKey, TimeoutError) when the AWS SDK
 * threw it (it carries `$metadata`): S3's message names the account, the role and the bucket, and the
 * Lambda's failure is posted to the deployment's Slack channel. The error itself is the cause, for a front end
 * to log. The store's own words (an object too large, a token that came again) are Warden's, and kept.
 */
function failed(doing: string, err: unknown): RunHistoryError {
  const error = err instanceof Error ? err : new Error(String(err));
  return new RunHistoryError(`${doing} failed: ${"$metadata" in error ? error.name : `${error.name}: ${error.message}`}`, { cause: err });
}

/** Reads stored runs from `objects`; "latest" lists `bucket()` (asked only then: an s3:// name carries its bucket). */
/** `signal`: a front end's stop (the CLI's Ctrl-C), which ends a listing or a read under way. */
export function runReader(objects: RunObjects, bucket: () => string, signal?: AbortSignal): RunReader {
  /** The latest run of these triggers: the greatest time among each trigger's greatest key. */
  async function latest(job: JobName, { triggers, what }: Extract<RunRef, { triggers: unknown }>): Promise<{ bucket: string; key: string; chosen: string }> {
    const Bucket = bucket();
    // The time is in the name, which whoever may write the prefix chooses: a run named after now (a year
    // 9999 planted by a role that may write it) is no run that has finished, and must not outrank every sweep.
    const latestTime = keyTime(new Date(Date.now() + CLOCK_ALLOWANCE_MS));
    let found: { key: string; name: string; trigger: Trigger } | undefined;
    for (const trigger of triggers) {
      const prefix = `runs/${job}/${trigger}/`;
      try {
        for await (const key of objects.keys(Bucket, prefix, signal)) {
          const name = key.slice(prefix.length);
          const dated = /^\d{8}T\d{6}\.\d{3}Z-/.test(name) && name.slice(0, latestTime.length) <= latestTime;
          if (dated && !name.includes("/") && (!found || name > found.name)) found = { key, name, trigger };
        }
      } catch (err) {
        throw failed(`listing s3://${Bucket}/${prefix}`, err);
      }
    }
    if (!found) {
      const where = triggers.map((t) => `s3://${Bucket}/runs/${job}/${t}/`).join(", ");
      throw new RunHistoryError(`no stored ${job} run for ${what} in ${where} (runs are kept there for a limited time; one kept before runs were stored by trigger is read by its s3:// name)`);
    }
    return { bucket: Bucket, key: found.key, chosen: `${what} (trigger ${found.trigger})` };
  }

  async function locate(ref: string, job: JobName): Promise<{ bucket: string; key: string; chosen?: string }> {
    const named = parseRunRef(ref);
    return "triggers" in named ? latest(job, named) : named;
  }

  return {
    async locate(ref, job) {
      const { bucket: at, key, chosen } = await locate(ref, job);
      return { location: `s3://${at}/${key}`, ...(chosen ? { chosen } : {}) };
    },
    async read(ref, job) {
      const where = await locate(ref, job);
      const location = `s3://${where.bucket}/${where.key}`;
      try {
        return { location, text: await objects.text(where.bucket, where.key, signal), ...(where.chosen ? { chosen: where.chosen } : {}) };
      } catch (err) {
        throw failed(`reading ${location}`, err);
      }
    },
  };
}

/**
 * A stored enforce run's removals, for restore: `ref` is a name parseRunRef reads. An unusable one is
 * named; the input's source names the run (and which run a "latest" chose), for the plan to say.
 */
export async function storedRestoreInput(history: RunReader, ref: string, located?: string): Promise<RestoreInput> {
  const { location, text, chosen = located } = await history.read(ref, "enforce");
  const input = parseRestoreTextFrom(location, text);
  return chosen ? { ...input, source: `${input.source}, ${chosen}` } : input;
}
