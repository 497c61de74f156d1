/**
 * lib/jobs' Steps (lib/jobs/steps.ts) on a Lambda durable execution (@aws/durable-execution-sdk-js):
 * each step is a durable step, its result checkpointed; `pause` is a one-second durable wait, which
 * ends the invocation and has Lambda invoke the function again, replaying the recorded steps and
 * going on from the first one not recorded.
 *
 * An invocation works for a slice of its time and then pauses: WARDEN_SLICE_SECONDS, or by default
 * its remaining time less a margin for what is in flight when the slice ends (a page or a batch of
 * removals, with their retries). Time and identity are read inside steps only, and recorded there, so
 * the code between steps stays deterministic as replay requires.
 *
 * Each invocation also has a deadline (DEADLINE_MARGIN_MS before Lambda would end it, lambda/deadline.ts):
 * every step's requests stop with it, so a step ends with what it did instead of being killed mid-way.
 * A removal step returns then (lib/jobs/enforce/index.ts carries on in the next invocation); any other
 * step fails, with a DeadlineError, and is attempted again in the next invocation from where it began.
 */
import { StepSemantics, type DurableContext, type Serdes } from "@aws/durable-execution-sdk-js";
import { randomUUID } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { isTerminal } from "../../../lib/http/index.ts";
import { DEADLINE_ATTEMPTS, errorText, type Steps } from "../../../lib/jobs/index.ts";
import { redactThenCut } from "../../../lib/redact/index.ts";
import { ConfigError } from "../config/settings.ts";
import { DeadlineError, invocationDeadline } from "../lambda/deadline.ts";
import { CredentialRotated } from "./rotation.ts";

/** Kept for what is in flight when a slice ends, by default: a page or a removal batch with retries. */
export const SLICE_MARGIN_MS = 5 * 60_000;
/** The least an invocation works, however little of its time is left. */
export const SLICE_FLOOR_MS = 30_000;
/** Kept between the deadline and Lambda's end of the invocation: the step's end, its checkpoint, the pause. */
export const DEADLINE_MARGIN_MS = 20_000;
/** Findings or changes one step records: with compression, well inside a checkpoint's 256 KB. */
const PER_STEP = 1_000;
/**
 * And at most so many bytes of them as JSON: names no compression shrinks (255 random characters a
 * project path, as anyone who may create a project may choose) still fit a checkpoint, gzip'd and in
 * base64 (at most some 1.35 times as long), beside what else the step records.
 */
const PER_STEP_BYTES = 150_000;
/** What Lambda keeps of one operation's result; bin/bench checks its rows against it too. */
export const CHECKPOINT_LIMIT = 256 * 1024;

/** The invocation now running: read inside steps only. */
export interface Invocation {
  id: string;
  startedAt: number;
  /** How long it works before pausing (ms). */
  sliceMs: number;
  /** Aborts DEADLINE_MARGIN_MS before the invocation's end; `deadlineAt` when (epoch ms). */
  deadline: AbortSignal;
  deadlineAt: number;
}

/** Called first in each invocation, before any replay. */
export function beginInvocation(ctx: DurableContext, env: NodeJS.ProcessEnv = process.env): Invocation {
  const set = env["WARDEN_SLICE_SECONDS"];
  const seconds = set === undefined || set === "" ? undefined : Number(set);
  if (seconds !== undefined && !(seconds > 0)) throw new ConfigError(`WARDEN_SLICE_SECONDS must be a positive number of seconds, not "${set}"`);
  const remaining = ctx.lambdaContext.getRemainingTimeInMillis();
  const sliceMs = seconds !== undefined ? seconds * 1000 : Math.max(SLICE_FLOOR_MS, remaining - SLICE_MARGIN_MS);
  const { signal, at } = invocationDeadline(remaining, { marginMs: DEADLINE_MARGIN_MS });
  return { id: randomUUID(), startedAt: Date.now(), sliceMs, deadline: signal, deadlineAt: at };
}

export interface DurableSteps extends Steps {
  /** Steps run or replayed so far, and the invocations that ran them. */
  counts(): { steps: number; invocations: number };
  /**
   * The run's time limit (epoch ms): past it, a step that changes nothing is not attempted again after its
   * invocation's deadline cut it, and fails (the run's failure, with its `job failed` line, metrics and
   * end), rather than each taking up to 10 more invocations and the execution ending at Lambda's timeout
   * with none of them. Steps that change things keep their attempts: they end on their own (removals stop
   * at the limit; "write notices" gives up on its last).
   */
  limitRetries(runEnd: number): void;
}

/** `renewed`: after a step's failure, whether its credential was refused and a new one is now in use (rotation.ts). */
export function durableSteps(ctx: DurableContext, invocation: Invocation, renewed: (err: unknown) => Promise<boolean> = async () => false): DurableSteps {
  let steps = 0;
  const invocations = new Set<string>();
  let runEnd = Infinity;
  /** The retry strategy's answer, and none past the run's limit for a step that changes nothing and was cut by the deadline. */
  const readOnlyRetries = (error: Error, attempt: number) => (error instanceof DeadlineError && Date.now() >= runEnd ? { shouldRetry: false } : retryStrategy(error, attempt));
  return {
    async step<T>(name: string, run: (attempt: number) => Promise<T>, opts?: { changes?: boolean }): Promise<T> {
      steps++;
      const attempt = async (n: number) => {
        try {
          return await run(n);
        } catch (err) {
          // Whatever the deadline cut short failed because of it: the retry strategy tells it apart.
          if (invocation.deadline.aborted) throw new DeadlineError(`${name}: cut short by the invocation's deadline (${errorText(err)})`, { cause: err });
          if (await renewed(err)) throw new CredentialRotated(`${name}: the credential was refused and the secret holds a new one (${errorText(err)})`, { cause: err });
          throw err;
        }
      };
      // Measured as recorded, the invocation's id beside the value.
      const done = await ctx.step(name, async (step) => withinCheckpoint({ value: await attempt(step.attempt), invocation: invocation.id }), {
        serdes: compressed as Serdes<{ value: T; invocation: string }>,
        retryStrategy: opts?.changes ? retryStrategy : readOnlyRetries,
        // A step that changes things is recorded as begun before it runs: one cut off by a crash counts as
        // a failed attempt, so the next attempt knows (attempt > 1) and judges each change again first.
        semantics: opts?.changes ? StepSemantics.AtMostOncePerRetry : StepSemantics.AtLeastOncePerRetry,
      });
      invocations.add(done.invocation);
      return done.value;
    },
    sliceEnd: () => Math.min(invocation.startedAt + invocation.sliceMs, invocation.deadlineAt),
    deadline: invocation.deadline,
    perStep: PER_STEP,
    perStepBytes: PER_STEP_BYTES,
    async pause(name, due) {
      if (due) await ctx.wait(name, { seconds: 1 });
    },
    counts: () => ({ steps, invocations: invocations.size }),
    limitRetries(end) {
      runEnd = end;
    },
  };
}

/**
 * A failed step is tried again (up to 3 attempts, 5 s and 10 s apart) unless its error says another
 * attempt would meet it again (lib/http's isTerminal: a refused request, a scope that does not exist,
 * bad settings). lib/http has already retried every transient failure inside the step. One cut short
 * by its invocation's deadline is tried again in the next invocation, up to DEADLINE_ATTEMPTS times;
 * one whose refused credential was rotated is tried again at once with the new one (rotation.ts).
 */
function retryStrategy(error: Error, attempt: number): { shouldRetry: boolean; delay?: { seconds: number } } {
  if (error instanceof DeadlineError) return attempt >= DEADLINE_ATTEMPTS ? { shouldRetry: false } : { shouldRetry: true, delay: { seconds: 1 } };
  // A new token: at once. (Renewed only when the token changed, so this is bounded by the attempts below.)
  if (error instanceof CredentialRotated) return attempt >= 3 ? { shouldRetry: false } : { shouldRetry: true, delay: { seconds: 1 } };
  return isTerminal(error) || attempt >= 3 ? { shouldRetry: false } : { shouldRetry: true, delay: { seconds: 5 * attempt } };
}

/**
 * Step results as gzip'd JSON: a slice's frontier and strays repeat the same keys, and compress about
 * tenfold, so a step records far more before it meets the checkpoint's size limit.
 */
const compressed: Serdes<unknown> = {
  async serialize(value) {
    if (value === undefined) return undefined;
    const data = recorded(value);
    if (data.length > CHECKPOINT_LIMIT) throw new Error(`a step's result is ${data.length} bytes compressed, more than a checkpoint holds (${CHECKPOINT_LIMIT})`);
    return data;
  },
  async deserialize(data) {
    return data === undefined ? undefined : JSON.parse(gunzipSync(Buffer.from(data, "base64")).toString("utf8"));
  },
};

/** The longest each text a server wrote keeps in a result too large to record whole: each cut tried in turn until it fits. */
const TEXT_CUTS = [200, 100, 50, 20, 0];

/**
 * A step's result as its checkpoint can hold it: whole when it fits; else with the text servers wrote
 * in it (each `error`, each of `warnings`: GitLab's messages, up to 300 characters of anything a proxy
 * chose, which no bound on the work planned limits) cut shorter and shorter until it fits, each cut
 * saying so. Bounded here, on what the step records, so that a step never fails after its work is done
 * (removals made and audited; each audit line keeps its error whole). Cut inside the step, so the live
 * invocation and a replay see the same result.
 */
export function withinCheckpoint<T>(value: T): T {
  if (value === undefined || surelyFits(value) || checkpointBytes(value) <= CHECKPOINT_LIMIT) return value;
  for (const max of TEXT_CUTS) {
    const cut = serverTextCut(value, max) as T;
    if (checkpointBytes(cut) <= CHECKPOINT_LIMIT) return cut;
  }
  // Past all of them (the names recorded alone): serialize says it does not fit.
  return value;
}

/**
 * Whether a result fits whatever gzip makes of it (a few bytes more at worst, then base64's third): most do,
 * and are not compressed here once more than the serdes compresses them.
 */
const surelyFits = (value: unknown): boolean => (Buffer.byteLength(JSON.stringify(value)) * 4) / 3 + 1024 <= CHECKPOINT_LIMIT;

/** `value` with each `error` string and each string of `warnings` within `max` characters (redacted first, then cut: redactThenCut). */
function serverTextCut(value: unknown, max: number): unknown {
  if (Array.isArray(value)) return value.map((item) => serverTextCut(item, max));
  if (!value || typeof value !== "object") return value;
  const cut = (text: unknown) => (typeof text === "string" ? redactThenCut(text, max) : text);
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, key === "error" ? cut(field) : key === "warnings" && Array.isArray(field) ? field.map(cut) : serverTextCut(field, max)]));
}

/** A value as a step records it. */
const recorded = (value: unknown): string => gzipSync(JSON.stringify(value)).toString("base64");

/** The bytes a step's result takes in its checkpoint (at most CHECKPOINT_LIMIT). */
export const checkpointBytes = (value: unknown): number => recorded(value).length;
