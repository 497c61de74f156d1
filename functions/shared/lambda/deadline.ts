/**
 * Middleware: `context.signal`, an AbortSignal that fires shortly before the Lambda's timeout, so a
 * job stops — no new work, and requests in flight are cancelled (a change cut off that way is reported
 * as "may or may not have happened") — and still has time to report what it did and where it stopped.
 *
 * Not middy's own `timeoutEarlyInMillis`: at that point middy answers with its timeout response and
 * drops whatever the handler returns later, and the late report is exactly what is wanted here.
 */
import type { MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";

export interface DeadlineContext {
  signal: AbortSignal;
}

export interface DeadlineOptions {
  /** Time kept for reporting (default 10 s). */
  marginMs?: number;
  /** The job gets at least this long, however little time is left (default 1 s). */
  floorMs?: number;
}

export class DeadlineError extends Error {
  override name = "DeadlineError";
}

/** The invocation's deadline: a signal that aborts `marginMs` before its end (never sooner than `floorMs` from now), and when (epoch ms). */
export function invocationDeadline(remainingMs: number, opts: DeadlineOptions = {}): { signal: AbortSignal; at: number; timer: NodeJS.Timeout } {
  const margin = opts.marginMs ?? 10_000;
  const ms = Math.max(opts.floorMs ?? 1_000, remainingMs - margin);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineError(`the Lambda times out in ${Math.round(margin / 1000)} s`)), ms);
  // The Lambda's own end comes soon anyway; the timer must not hold a test process (or an idle container) open.
  timer.unref();
  return { signal: controller.signal, at: Date.now() + ms, timer };
}

/** Typed for the plain Lambda context it is given; the handler reads the signal as `Context & DeadlineContext`. */
export function deadlineSignal(opts: DeadlineOptions = {}): MiddlewareObj<unknown, unknown, Error, Context, { deadlineTimer?: NodeJS.Timeout }> {
  const clear = (request: { internal: { deadlineTimer?: NodeJS.Timeout } }) => clearTimeout(request.internal.deadlineTimer);
  return {
    before(request) {
      const deadline = invocationDeadline(request.context.getRemainingTimeInMillis(), opts);
      request.internal.deadlineTimer = deadline.timer;
      (request.context as Context & DeadlineContext).signal = deadline.signal;
    },
    after: clear,
    onError: clear,
  };
}
