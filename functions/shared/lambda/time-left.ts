/**
 * What follows a run (its stored report, the lease given back, the Slack posts) must end inside the
 * invocation: Lambda, or middy's early timeout, cuts off a handler that outlives it, and its report with
 * it. So each of those calls gets a slice of the time left: at most its own cap, and never more than
 * what remains of the invocation less a margin kept for returning the report. A call whose slice would
 * be too short to be of use is skipped, and the log says so.
 */
import { logger } from "../lambda/logger.ts";

/** How long the invocation has left, in milliseconds: the Lambda context's getRemainingTimeInMillis. */
export type TimeLeft = () => number;

/** Without a Lambda context (a unit test), only a call's own cap bounds it. */
export const UNBOUNDED: TimeLeft = () => Infinity;

/** Kept after the last call: the handler returns the report (a durable step checkpoints it) in this. */
export const RETURN_MARGIN_MS = 2_000;
/** A shorter slice is not worth starting: a post that goes well takes a few hundred milliseconds. */
export const MIN_SLICE_MS = 1_000;

export class SliceTimeoutError extends Error {
  override name = "SliceTimeoutError";
}

/**
 * The signal for one call after a run (`what` names it in the log): it aborts when `capMs` or the
 * invocation's time less the margin is up, whichever comes first. Undefined, with a warning, when that
 * leaves less than MIN_SLICE_MS: the caller skips the call.
 */
export function sliceSignal(what: string, capMs: number, timeLeft: TimeLeft = UNBOUNDED): AbortSignal | undefined {
  const left = timeLeft();
  const ms = Math.floor(Math.min(capMs, left - RETURN_MARGIN_MS));
  if (ms < MIN_SLICE_MS) {
    logger.warn(`${what}: skipped, the invocation has too little time left`, { remainingMs: Math.max(0, Math.round(left)), neededMs: MIN_SLICE_MS + RETURN_MARGIN_MS });
    return undefined;
  }
  const controller = new AbortController();
  const reason = ms < capMs ? "all the invocation could spare" : "its limit";
  // Unref'd: a call that ended early must not keep an idle container (or a test process) waiting.
  setTimeout(() => controller.abort(new SliceTimeoutError(`${what}: no answer within ${(ms / 1000).toFixed(1)} s, ${reason}`)), ms).unref();
  return controller.signal;
}
