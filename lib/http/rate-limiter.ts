/**
 * One limiter per origin and credential, shared by every client and listing that uses them: a token
 * bucket for the configured rate, the server's own budget per endpoint (`RateLimit-Remaining` until
 * `RateLimit-Reset`) spread out as it runs low, and a pause of everything when any request gets a 429.
 *
 * GitLab shows a budget only on its 429s by default. Once a 429 has shown one, the windows after it
 * are counted here: when a window ends, the next one is taken to allow the same `RateLimit-Limit`, and
 * the requests sent are counted against it. Its end is unknown, so when the count is spent the requests
 * in flight finish and one request goes alone: its 429 tells the new window's end (and everything
 * waits for it, as before), its success that the window had room left (and the count is dropped). A
 * window costs one 429 that way, not one for every request in flight when the budget ran out.
 *
 * Beside them, the requests in flight adapt to the server's pushback (concurrency.ts), for every route.
 */
import { createHash } from "node:crypto";
import { AdaptiveConcurrency } from "./concurrency.ts";
import { rateLimitResetAt } from "./retry-delay.ts";
import { sleep } from "./sleep.ts";

/** The longest wait a server may ask for (RetryOptions.maxServerWaitMs); GitLab asks for 60–900 s. */
export const DEFAULT_MAX_SERVER_WAIT_MS = 900_000;

export interface RateLimiterOptions {
  /** Steady rate; Infinity (the default) for self-managed instances without limits. */
  ratePerSecond?: number;
  /** Requests allowed back to back before the rate applies. */
  burst?: number;
  /** Fraction of `RateLimit-Limit` below which requests are spread until `RateLimit-Reset`. */
  lowWatermark?: number;
  /**
   * A budget whose `RateLimit-Reset` lies further ahead than this is not held to (default 900 s, the
   * retry layer's longest server wait, RetryOptions.maxServerWaitMs): requests go on, and a 429 that
   * asks for a longer wait fails at once, naming it. GitLab's windows last a minute to ten.
   */
  maxServerWaitMs?: number;
}

/** Why the limiter holds a request back: a 429's pause, the server's budget spent or low, or the configured rate. */
export type HoldReason = "paused" | "budget-spent" | "budget-low" | "rate";
type OnHold = (waitMs: number, reason: HoldReason) => void;

/** The time a request's holds may not run past (its budget's end), and the error for one that would. */
export interface HoldEnd {
  at: number;
  refusal: (waitMs: number, reason: HoldReason) => Error;
}

interface Budget {
  remaining: number;
  limit: number;
  /** Infinity: a window counted here, after the one the server showed, whose end is unknown. */
  resetAt: number;
}

interface RouteState {
  /** The acquisition in progress; the next one waits for it. */
  turn: Promise<void>;
  lastStart: number;
  budget?: Budget;
  /** Requests sent and not yet answered, and who waits for there to be none. */
  inFlight: number;
  idle?: () => void;
  /** The one request sent once a counted window's budget was spent: its answer tells the window's end. */
  probing: boolean;
}

export class RateLimiter {
  /** Requests in flight to this origin and credential, whatever their route. */
  readonly concurrency = new AdaptiveConcurrency();
  private readonly intervalMs: number;
  private readonly burst: number;
  private readonly lowWatermark: number;
  private readonly maxServerWaitMs: number;
  private readonly now: () => number;
  /** Token bucket for the configured rate, shared by every route. */
  private tokens: number;
  private refilledAt: number;
  private pausedUntil = 0;
  /** The pause already announced: every request held by one pause is one wait to a person, said once. */
  private pauseAnnounced = 0;
  /**
   * Per route: GitLab budgets endpoints separately, and an answer reports the tightest budget *its*
   * request counted against — so one endpoint's spent budget must not hold back another's requests.
   * Within a route, acquisitions take turns, so each gap is computed from the latest state.
   */
  private readonly routes = new Map<string, RouteState>();

  constructor(opts: RateLimiterOptions = {}, now: () => number = Date.now) {
    const rate = opts.ratePerSecond ?? Infinity;
    this.intervalMs = rate === Infinity ? 0 : 1000 / rate;
    this.burst = Math.max(1, opts.burst ?? 1);
    this.lowWatermark = opts.lowWatermark ?? 0.1;
    this.maxServerWaitMs = opts.maxServerWaitMs ?? DEFAULT_MAX_SERVER_WAIT_MS;
    this.now = now;
    this.tokens = this.burst;
    this.refilledAt = now();
  }

  /**
   * Waits for `route`'s turn; `onHold` hears of every sleep it takes on the way, and why. A sleep that
   * would end past `end.at` is not taken: the request fails with `end.refusal` instead.
   */
  acquire(route: string, signal?: AbortSignal, onHold?: OnHold, end?: HoldEnd): Promise<void> {
    const state = this.route(route);
    const mine = state.turn.then(() => this.waitForTurn(state, signal, onHold, end));
    state.turn = mine.catch(() => undefined);
    return mine;
  }

  /** Every request to this origin and credential waits until `untilMs`. */
  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** How long every request to this origin is still paused for (0: not paused). */
  pausedForMs(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /** Reads GitLab's RateLimit-* headers from an answer on `route`, and ends that request's turn in flight. */
  observe(route: string, headers: Record<string, string>, status: number): void {
    const state = this.route(route);
    const probe = state.probing;
    state.probing = false;
    // Counts and a time in whole seconds, as GitLab writes them: anything else (a limiter's -1 for
    // "unlimited", a fraction) is no budget, not a divisor of the time left.
    const remaining = count(headers["ratelimit-remaining"]);
    const limit = count(headers["ratelimit-limit"]);
    const resetAt = rateLimitResetAt(count(headers["ratelimit-reset"]), this.now());
    // A window ending further ahead than a server may make us wait holds nothing back: "0 left until
    // next hour" (or the year 5138) would otherwise hold the route's requests that long, unbounded.
    if (!Number.isFinite(remaining) || !Number.isFinite(limit) || !Number.isFinite(resetAt) || resetAt - this.now() > this.maxServerWaitMs) {
      // The request sent alone got through: the counted window had room after all.
      if (probe && status !== 429) state.budget = undefined;
      return;
    }
    // Answers arrive out of order: within one window the lowest count is the freshest. A window's end
    // written as seconds to go is known to a second only, so ends less than a second apart are one window.
    const sameWindow = state.budget !== undefined && Math.abs(state.budget.resetAt - resetAt) < 1000 && state.budget.limit === limit;
    state.budget = { remaining: sameWindow ? Math.min(remaining, state.budget!.remaining) : remaining, limit, resetAt: sameWindow ? Math.max(resetAt, state.budget!.resetAt) : resetAt };
  }

  /** A request's answer (or failure) is in: `route` has one fewer in flight. */
  done(route: string): void {
    const state = this.route(route);
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (state.inFlight === 0) {
      // A request sent alone that failed without an answer told nothing: the next goes alone instead.
      state.probing = false;
      state.idle?.();
      state.idle = undefined;
    }
  }

  private route(route: string): RouteState {
    let state = this.routes.get(route);
    if (!state) this.routes.set(route, (state = { turn: Promise.resolve(), lastStart: -Infinity, inFlight: 0, probing: false }));
    return state;
  }

  /** Once the window the server showed has ended, the next is counted here, as allowing as much. */
  private rollOver(state: RouteState, now: number): void {
    const b = state.budget;
    if (b && now >= b.resetAt) state.budget = { remaining: b.limit, limit: b.limit, resetAt: Infinity };
  }

  private async waitForTurn(state: RouteState, signal?: AbortSignal, onHold?: OnHold, end?: HoldEnd): Promise<void> {
    for (let now = this.now(); ; now = this.now()) {
      this.refill(now);
      this.rollOver(state, now);
      // A counted window spent: what is in flight finishes first, then one request goes alone.
      if (this.countedSpent(state) && state.inFlight > 0) {
        await untilIdle(state, signal);
        continue;
      }
      const rateAt = this.tokens >= 1 ? now : now + (1 - this.tokens) * this.intervalMs;
      const serverAt = state.lastStart + this.serverGap(state, now);
      const at = Math.max(this.pausedUntil, rateAt, serverAt);
      if (at <= now) break;
      const reason: HoldReason =
        at === this.pausedUntil ? "paused" : at === serverAt ? (state.budget?.remaining === 0 ? "budget-spent" : "budget-low") : "rate";
      // Each hold is bounded, not their sum: the k-th request queued on a spent route would wait k windows.
      if (end && at > end.at) throw end.refusal(at - now, reason);
      if (reason !== "paused" || this.pauseAnnounced !== this.pausedUntil) onHold?.(at - now, reason);
      if (reason === "paused") this.pauseAnnounced = this.pausedUntil;
      await sleep(at - now, signal);
    }
    state.probing = this.countedSpent(state);
    state.lastStart = this.now();
    state.inFlight++;
    this.tokens -= this.intervalMs > 0 ? 1 : 0;
    if (state.budget && state.budget.remaining > 0) state.budget.remaining--;
  }

  private countedSpent(state: RouteState): boolean {
    return state.budget?.resetAt === Infinity && state.budget.remaining === 0;
  }

  /**
   * The gap the server's budget asks for: none while it is ample or unknown; the time left spread
   * evenly over what remains once it runs low; the rest of the window once it is spent.
   */
  private serverGap({ budget: b, lastStart }: RouteState, now: number): number {
    // A counted window's end is unknown: nothing to spread over (its spent budget is handled above).
    if (!b || now >= b.resetAt || b.resetAt === Infinity) return 0;
    if (b.remaining === 0) return b.resetAt - lastStart;
    return b.remaining <= b.limit * this.lowWatermark ? (b.resetAt - now) / (b.remaining + 1) : 0;
  }

  private refill(now: number): void {
    if (this.intervalMs === 0) return;
    this.tokens = Math.min(this.burst, this.tokens + (now - this.refilledAt) / this.intervalMs);
    this.refilledAt = now;
  }
}

/** A header's non-negative whole number, or NaN. */
function count(value: string | undefined): number {
  return value !== undefined && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : NaN;
}

/** Until `route` has nothing in flight (done() resolves it), or the signal aborts. */
function untilIdle(state: RouteState, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    signal?.throwIfAborted();
    const abort = () => reject(signal!.reason);
    state.idle = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}

export class RateLimiterRegistry {
  private readonly limiters = new Map<string, RateLimiter>();

  /** The limiter for an origin and credential; options apply when it is first made. */
  get(origin: string, credential: string, opts?: RateLimiterOptions): RateLimiter {
    // Hash the credential so the key itself never holds a secret.
    const key = `${origin} ${createHash("sha256").update(credential).digest("hex").slice(0, 16)}`;
    let limiter = this.limiters.get(key);
    if (!limiter) this.limiters.set(key, (limiter = new RateLimiter(opts)));
    return limiter;
  }
}

/** Process-wide: in a warm Lambda, consecutive invocations share the budget they share on the server. */
export const sharedLimiters = new RateLimiterRegistry();
