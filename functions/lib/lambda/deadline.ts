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

/** Typed for the plain Lambda context it is given; the handler reads the signal as `Context & DeadlineContext`. */
export function deadlineSignal(opts: DeadlineOptions = {}): MiddlewareObj<unknown, unknown, Error, Context, { deadlineTimer?: NodeJS.Timeout }> {
  const margin = opts.marginMs ?? 10_000;
  const floor = opts.floorMs ?? 1_000;
  const clear = (request: { internal: { deadlineTimer?: NodeJS.Timeout } }) => clearTimeout(request.internal.deadlineTimer);
  return {
    before(request) {
      const controller = new AbortController();
      const ms = Math.max(floor, request.context.getRemainingTimeInMillis() - margin);
      const timer = setTimeout(() => controller.abort(new DeadlineError(`the Lambda times out in ${Math.round(margin / 1000)} s`)), ms);
      // The Lambda's own end comes soon anyway; the timer must not hold a test process (or an idle container) open.
      timer.unref();
      request.internal.deadlineTimer = timer;
      (request.context as Context & DeadlineContext).signal = controller.signal;
    },
    after: clear,
    onError: clear,
  };
}
