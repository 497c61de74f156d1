/**
 * One deadline per attempt, for the headers and the whole body together. undici's own timeouts are per
 * phase and its body timeout per chunk, so a server that drips a byte every few seconds would be waited
 * on forever; this one fires however the bytes come. It sits inside the rate limiter (a hold there is
 * no fault of the server's) and outside credentials and the transport, so the abort reaches the socket.
 */
import { NetworkError } from "./errors.ts";
import type { Redactor } from "../redact/index.ts";
import type { Layer } from "./types.ts";
import { seconds, type WaitReporter } from "./waits.ts";

/** The code of a timed-out attempt; the retry layer limits how often it repeats one. */
export const ANSWER_TIMEOUT = "ANSWER_TIMEOUT";

export function deadlineLayer(timeoutMs: number, waits: WaitReporter, redactor: Redactor): Layer {
  return (next) => async (req) => {
    const timer = new AbortController();
    const deadline = setTimeout(() => timer.abort(new Error(ANSWER_TIMEOUT)), timeoutMs);
    // Once per attempt: a person watching a run should know why it is quiet.
    const slow =
      waits.listening && waits.thresholdMs < timeoutMs
        ? setTimeout(
            () =>
              waits.report("slow-answer", req, waits.thresholdMs, () => {
                const left = timeoutMs - waits.thresholdMs;
                const ending = `still waiting for ${waits.service} to answer ${req.route} after ${seconds(waits.thresholdMs)} s (attempt ${req.attempt ?? 1})`;
                if (req.retryAfterTimeoutMs === undefined) return `${ending}; giving up at ${waits.at(left)}`;
                return `${ending}; this attempt ends at ${waits.at(left)}, then one more: giving up by ${waits.at(left + req.retryAfterTimeoutMs + timeoutMs)}`;
              }),
            waits.thresholdMs,
          )
        : undefined;
    try {
      return await next({ ...req, signal: req.signal ? AbortSignal.any([req.signal, timer.signal]) : timer.signal });
    } catch (err) {
      // The caller's own abort wins and keeps its reason; only our deadline becomes a NetworkError.
      if (!timer.signal.aborted || req.signal?.aborted) throw err;
      throw new NetworkError({
        code: ANSWER_TIMEOUT,
        method: req.method,
        route: req.route,
        path: redactor.path(req.url),
        // The request went out: whatever it asked may have been done.
        mayHaveReachedServer: true,
        message: `${req.method} ${redactor.path(req.url)}: no complete answer from ${waits.service} within ${seconds(timeoutMs)} s`,
      });
    } finally {
      clearTimeout(deadline);
      clearTimeout(slow);
    }
  };
}
