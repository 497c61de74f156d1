/**
 * The rate-limit layer: a request takes a place among those in flight to its origin (concurrency.ts),
 * then waits for its turn at the limiter (rate-limiter.ts), and tells both how it was answered.
 */
import type { Outcome } from "./concurrency.ts";
import type { HoldEnd, HoldReason, RateLimiter } from "./rate-limiter.ts";
import type { StatsRecorder } from "./stats.ts";
import type { HttpRequest, HttpResponse, Layer } from "./types.ts";
import { seconds, type WaitReporter } from "./waits.ts";

const HOLDS: Record<HoldReason, (service: string) => string> = {
  paused: (service) => `${service} answered 429 on this origin, which pauses every request to it`,
  "budget-spent": (service) => `${service}'s RateLimit-Remaining budget for this route is spent`,
  "budget-low": (service) => `${service}'s RateLimit-Remaining budget for this route is running low, so requests are spread out`,
  rate: () => "keeping to the configured request rate",
};

export function rateLimitLayer(limiter: RateLimiter, waits: WaitReporter, stats: StatsRecorder): Layer {
  const { concurrency } = limiter;
  return (next) => async (req) => {
    await concurrency.acquire(req.signal, () => placeNotice(limiter, waits, req));
    let epoch = concurrency.sent();
    let outcome: Outcome = "none";
    try {
      await limiter.acquire(
        req.route,
        req.signal,
        (waitMs, reason) => waits.report("rate-limit", req, waitMs, () => `holding ${req.route} for ${seconds(waitMs)} s: ${HOLDS[reason](waits.service)}; resuming at ${waits.at(waitMs)}`),
        holdEnd(req, waits),
      );
      epoch = concurrency.sent();
      try {
        const res = await next(req);
        limiter.observe(req.route, res.headers, res.status);
        outcome = outcomeOf(res);
        return res;
      } finally {
        limiter.done(req.route);
      }
    } finally {
      concurrency.release(epoch, outcome);
      stats.noteConcurrency(concurrency.limit);
    }
  };
}

/**
 * A request's holds count against its budget, as its attempts and the retries' waits do: one that would
 * run past it fails the request at once, unsent (so a POST is not made), and is not retried.
 */
function holdEnd(req: HttpRequest, waits: WaitReporter): HoldEnd | undefined {
  if (req.budgetEndsAt === undefined) return undefined;
  const refusal = (waitMs: number, reason: HoldReason) =>
    new HoldRefused(`${req.route} was not sent: ${HOLDS[reason](waits.service)}, and holding it ${seconds(waitMs)} s, until ${waits.at(waitMs)}, would take it past its time limit (attempts and waits included): run again once that time has passed`);
  return { at: req.budgetEndsAt, refusal };
}

/** A request the limiter would have held past its budget: not sent (retry.ts reports an earlier attempt's outcome instead, if one may have applied). */
export class HoldRefused extends Error {
  override name = "HoldRefused";
}

/** Pushback (pushedBack) narrows what is in flight; any other answer below 500 is room. */
function outcomeOf(res: HttpResponse): Outcome {
  if (pushedBack(res)) return "pushback";
  return res.status < 500 ? "ok" : "none";
}

/** A 429, or a 503 that says when to come back, is the server pushing back: the retry layer waits out both alike, and gives up on a route alike. */
export function pushedBack(res: HttpResponse): boolean {
  return res.status === 429 || (res.status === 503 && res.headers["retry-after"] !== undefined);
}

/**
 * A wait for a place has no known end: it is reported once it has lasted the notice threshold, unless
 * the origin is paused then (that pause is announced already): then only if it lasts that long past it.
 */
function placeNotice(limiter: RateLimiter, waits: WaitReporter, req: HttpRequest): () => void {
  if (!waits.listening) return () => undefined;
  const { concurrency } = limiter;
  let waited = 0;
  let timer: NodeJS.Timeout;
  const arm = (ms: number) => {
    timer = setTimeout(() => {
      waited += ms;
      const paused = limiter.pausedForMs();
      if (paused > 0) return arm(paused + waits.thresholdMs);
      waits.report("rate-limit", req, waited, () =>
        `holding ${req.route} for ${seconds(waited)} s so far: ${waits.service} pushed back, so requests to it go ${concurrency.limit} at a time; this one goes when one in flight is answered`,
      );
    }, ms);
  };
  arm(waits.thresholdMs);
  return () => clearTimeout(timer);
}
