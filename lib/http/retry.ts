/**
 * Retries what is safe to repeat. Idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE): 429, 500 and the
 * gateway errors 502/503/504, network failures, timed-out attempts and bodies cut short. Anything else
 * (a pipeline POST): only a 429, or a connection that failed before a byte was sent — never something
 * that may have reached the server.
 *
 * A 429 was refused before anything happened: it is retried until the request's budget or the caller's
 * signal ends it, never for a count, and it spends none of the attempts other failures have. Until the
 * service has answered once (per client, so per run), a failure to reach it — refused, unknown host, TLS
 * mismatch, no answer in time — ends the request at once (a connection closed unanswered, after one more
 * try): it is a setting to fix, and the caller names it.
 */
import { sleep } from "./sleep.ts";
import { ANSWER_TIMEOUT } from "./deadline.ts";
import { TRUNCATED_BODY } from "./json.ts";
import { httpError, NetworkError, UnexpectedAnswerError } from "./errors.ts";
import { DEFAULT_MAX_SERVER_WAIT_MS, type RateLimiter } from "./rate-limiter.ts";
import { HoldRefused, pushedBack } from "./rate-limit-layer.ts";
import { backoffMs, serverDelay } from "./retry-delay.ts";
import type { Redactor } from "../redact/index.ts";
import type { StatsRecorder } from "./stats.ts";
import { closedUnanswered, notReached } from "./transport.ts";
import { IDEMPOTENT_METHODS, type HttpRequest, type HttpResponse, type Layer } from "./types.ts";
import { seconds, type WaitReporter } from "./waits.ts";

export interface RetryOptions {
  /** Attempts after the first that a 5xx or a network failure may cost (a 429 costs none). */
  maxRetries?: number;
  /**
   * Of those, how many may follow an attempt that got no complete answer in time (each costs a whole
   * deadline; default 1). None before the service has answered once: a first contact that times out fails.
   */
  maxTimeoutRetries?: number;
  baseDelayMs?: number;
  /** Cap of our own backoff. */
  maxBackoffMs?: number;
  /**
   * Bare 429s (no header says how long) wait from this base, doubled for each 429 in a row on the origin
   * (any success starts again): a token bucket's refill is a fraction of a second, GitLab's windows a minute.
   */
  rateLimitedBaseMs?: number;
  /** The longest single wait a server may ask for; GitLab asks for 60–900 s. Longer asks fail at once. */
  maxServerWaitMs?: number;
  /**
   * Total time one request may take, attempts, waits and redirect hops together, measured from its first
   * attempt: no wait starts that would end past it. Default 20 minutes: room for GitLab's longest
   * Retry-After (15 minutes) and a few attempts around it, while a run's own deadline (the caller's signal)
   * stays the tighter bound wherever it is set. The last attempt may run over by up to one attempt deadline
   * (one per redirect hop it follows).
   * It is all that bounds a request refused with 429s.
   */
  budgetMs?: number;
  random?: () => number;
  now?: () => number;
}

export interface RetryEvent {
  route: string;
  method: string;
  attempt: number;
  waitMs: number;
  reason: string;
}

interface Decision {
  waitMs: number;
  /** Short: "503", "429", "ECONNRESET". */
  reason: string;
  /** What happened, for a person: "GitLab answered 503 to DELETE /projects/:id/share/:group_id". */
  what: string;
  /** The header the server asked to wait with, if it did on a 429. */
  askedBy?: string;
}

const RETRYABLE_5XX = new Set([500, 502, 503, 504]);
/** Codes of attempts that got no complete answer in time: ours, and undici's if a caller set its timeouts. */
const TIMEOUTS = new Set([ANSWER_TIMEOUT, "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);
/** Bare 429s back off further than other failures: GitLab's windows last a minute or more. */
const RATE_LIMITED_CAP_MS = 120_000;

/** Whether the service has answered once through this client, in this run: until then, failing to reach it is a setting to fix. */
export interface Contact {
  answered: boolean;
}

export function retryLayer(
  opts: RetryOptions,
  contact: Contact,
  limiter: RateLimiter,
  stats: StatsRecorder,
  redactor: Redactor,
  waits: WaitReporter,
  onRetry?: (e: RetryEvent) => void,
): Layer {
  const maxRetries = opts.maxRetries ?? 6;
  const maxTimeoutRetries = opts.maxTimeoutRetries ?? 1;
  const base = opts.baseDelayMs ?? 250;
  const cap = opts.maxBackoffMs ?? 30_000;
  const rateLimitedBase = opts.rateLimitedBaseMs ?? 200;
  const maxServerWait = opts.maxServerWaitMs ?? DEFAULT_MAX_SERVER_WAIT_MS;
  const budget = opts.budgetMs ?? 1_200_000;
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const service = waits.service;
  /**
   * Routes on which a request gave up on pushback (429s, or 503s saying when to come back: the same waits),
   * with what it met. Until the route answers otherwise, pushback there ends a request at once: each would
   * spend a budget of its own, and a run reading a detail per group, one budget (20 minutes) for every
   * batch of groups in flight, for hours, before its report.
   */
  const refusedRoutes = new Map<string, string>();

  return (next) => async (req) => {
    const started = now();
    /** The retries' waits so far: short ones in a row are reported once they add up (waits.ts). */
    let waited = 0;
    let mayHaveApplied = false;
    /** The last attempt that may have applied (a 5xx, or a failure after the request went out): what a retry held back past the budget reports. */
    let applied: { res: HttpResponse } | { err: NetworkError } | undefined;
    /** 5xx and network failures so far: they have attempts to spend, a 429 has none. */
    let failures = 0;
    let timeouts = 0;
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse | undefined;
      let decision: Decision | undefined;
      let reached = false;
      // What an attempt that times out leads to, for the deadline layer's notice: one more after at most this wait, or nothing.
      const timeoutRetry = contact.answered && IDEMPOTENT_METHODS.has(req.method) && timeouts < maxTimeoutRetries && failures < maxRetries;
      try {
        res = await next({ ...req, attempt: attempt + 1, retryAfterTimeoutMs: timeoutRetry ? Math.min(cap, base * 2 ** failures) : undefined, budgetEndsAt: started + budget });
        // A redirect not followed (a POST's, one without a Location) is not yet the service answering: on first contact, that is the address to fix.
        if (res.status < 300 || res.status >= 400) contact.answered = true;
        if (!pushedBack(res)) refusedRoutes.delete(req.route);
        decision = decide(req, res, failures);
      } catch (err) {
        // A retry the rate limiter held past the budget was not sent, but an earlier attempt may have applied: that is the outcome.
        if (err instanceof HoldRefused && applied) throw "res" in applied ? httpError(req, applied.res, redactor, "not tried again: the rate limiter would have held the retry past the request's time limit") : applied.err;
        // An answer that is not what the API sends is an answer all the same: the address reaches a server.
        if (err instanceof UnexpectedAnswerError) contact.answered = true;
        if (!(err instanceof NetworkError) || !networkRetryable(req, err)) throw err;
        const timedOut = TIMEOUTS.has(err.code);
        contact.answered ||= err.afterHeaders;
        // A connection closed unanswered is a blip as often as a TLS port hanging up on http://: one more try tells them apart.
        if (!contact.answered && (timedOut || notReached(err.code) || (closedUnanswered(err.code) && failures > 0))) throw err;
        if (timedOut && ++timeouts > maxTimeoutRetries) throw err;
        reached = err.mayHaveReachedServer;
        if (reached) applied = { err };
        decision = { waitMs: backoffMs(failures, base, cap, random), reason: err.code, what: `${req.route} to ${service}: ${networkWhat(err)}` };
        if (failures >= maxRetries || now() - started + decision.waitMs > budget) throw err;
      }
      if (!decision) return mayHaveApplied ? { ...res!, earlierAttemptMayHaveApplied: true } : res!;
      // A 429 was refused before anything happened; a 5xx or a lost connection may follow a change made.
      if (res ? res.status >= 500 : reached) mayHaveApplied = true;
      if (res && res.status >= 500) applied = { res };
      const refused = res?.status === 429;
      const pushback = res !== undefined && pushedBack(res);
      const refusedBefore = pushback ? refusedRoutes.get(req.route) : undefined;
      if (res && (refusedBefore !== undefined || (!refused && failures >= maxRetries) || decision.waitMs > maxServerWait || now() - started + decision.waitMs > budget)) {
        const detail = refusedBefore ?? giveUpDetail(decision.waitMs, attempt + 1, !refused && failures >= maxRetries);
        // Only pushback waited out marks the route: one ask past the ceiling fails its own request alone (the next may be asked for less).
        if (pushback && refusedBefore === undefined && decision.waitMs <= maxServerWait) {
          const met = refused ? "429s" : "503s with Retry-After";
          refusedRoutes.set(req.route, `not retried: an earlier request to ${req.route} met ${met} until it gave up (${detail}), and the route has answered nothing else since`);
        }
        throw httpError(req, res, redactor, detail);
      }
      if (!refused) failures++;
      // The budget is shared on the server: hold back every request to this origin, not only this one.
      if (refused) limiter.pause(now() + decision.waitMs);
      stats.count(req.route, "retries");
      onRetry?.({ route: req.route, method: req.method, attempt: attempt + 1, waitMs: decision.waitMs, reason: decision.reason });
      const { waitMs, what, askedBy } = decision;
      const sofar = waited > 0 ? ` (${seconds(waited + waitMs)} s of waits on this request by then)` : "";
      waits.report(
        "retry",
        { ...req, attempt: attempt + 1 },
        waitMs,
        () =>
          askedBy
            ? `${service} asked to wait ${seconds(waitMs)} s (${askedBy}) on ${req.route}; resuming at ${waits.at(waitMs)}${sofar}`
            : refused
              ? `${what}; retrying in ${seconds(waitMs)} s, at ${waits.at(waitMs)} (a 429 is retried until ${waits.at(started + budget - now())})${sofar}`
              : `${what}; retrying in ${seconds(waitMs)} s (attempt ${failures + 1} of at most ${maxRetries + 1}), at ${waits.at(waitMs)}${sofar}`,
        waited,
      );
      waited += waitMs;
      await sleep(waitMs, req.signal);
    }
  };

  function giveUpDetail(waitMs: number, attempts: number, spent: boolean): string {
    if (waitMs > maxServerWait) return `asked to wait ${seconds(waitMs)} s, above the ${maxServerWait / 1000} s ceiling`;
    return spent ? `gave up after ${attempts} attempts` : `gave up after ${attempts} attempts: the next would start past the request's ${seconds(budget)} s budget`;
  }

  function decide(req: HttpRequest, res: HttpResponse, failures: number): Decision | undefined {
    const said = `${service} answered ${res.status} to ${req.route}`;
    if (res.status === 429) {
      const asked = serverDelay(res.headers, now());
      // A wait of 0 (a date or reset already past: a server clock behind ours, or a hostile one) is
      // backed off from as a bare 429 is: taken at its word, 429s in a row would be a busy loop.
      if (asked && asked.ms > 0) return { waitMs: asked.ms, reason: "429", what: said, askedBy: asked.header };
      // Equal jitter, not full: a bare 429 answered at once would only burn more of the window. The
      // origin's 429s in a row (the rate-limit layer has counted this one) find a window's end in a few.
      const inRow = Math.max(0, limiter.concurrency.pushbacks - 1);
      const waitMs = Math.floor(Math.min(RATE_LIMITED_CAP_MS, rateLimitedBase * 2 ** inRow) * (0.5 + random() / 2));
      return { waitMs, reason: "429 without Retry-After", what: `${said} without saying how long to wait${asked ? ` (its ${asked.header} had passed)` : ""}` };
    }
    if (IDEMPOTENT_METHODS.has(req.method) && RETRYABLE_5XX.has(res.status)) {
      // Retry-After only: RateLimit-Reset, which GitLab may send on any answer, is about the rate budget.
      const asked = serverDelay(res.headers, now(), { rateLimitReset: false });
      // A wait of 0 (a date already past) is backed off from, as a 429's is: not an attempt at once.
      return { waitMs: asked && asked.ms > 0 ? asked.ms : backoffMs(failures, base, cap, random), reason: String(res.status), what: said };
    }
    return undefined;
  }
}

function networkRetryable(req: HttpRequest, err: NetworkError): boolean {
  return IDEMPOTENT_METHODS.has(req.method) || !err.mayHaveReachedServer;
}

function networkWhat(err: NetworkError): string {
  if (err.code === ANSWER_TIMEOUT) return "no complete answer in time";
  if (err.code === TRUNCATED_BODY) return "the answer was cut short";
  return `failed (${err.code})`;
}
