/**
 * One limiter per origin and credential, shared by every client and listing that uses them: a token
 * bucket (kept as a GCRA schedule), slowed down as `RateLimit-Remaining` runs low, and paused as a
 * whole when any request gets a 429.
 */
import { createHash } from "node:crypto";
import { sleep } from "./sleep.ts";
import type { Layer } from "./types.ts";

export interface RateLimiterOptions {
  /** Steady rate; Infinity (the default) for self-managed instances without limits. */
  ratePerSecond?: number;
  /** Requests allowed back to back before the rate applies. */
  burst?: number;
  /** Fraction of `RateLimit-Limit` below which requests are spread until `RateLimit-Reset`. */
  lowWatermark?: number;
}

export class RateLimiter {
  private readonly intervalMs: number;
  private readonly burstWindowMs: number;
  private readonly lowWatermark: number;
  private readonly now: () => number;
  /** Theoretical arrival time of the next request. */
  private tat = 0;
  private pausedUntil = 0;
  private adaptiveIntervalMs = 0;

  constructor(opts: RateLimiterOptions = {}, now: () => number = Date.now) {
    const rate = opts.ratePerSecond ?? Infinity;
    this.intervalMs = rate === Infinity ? 0 : 1000 / rate;
    this.burstWindowMs = Math.max(0, (opts.burst ?? 1) - 1) * this.intervalMs;
    this.lowWatermark = opts.lowWatermark ?? 0.1;
    this.now = now;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = this.reserve();
      if (wait > 0) await sleep(wait, signal);
      // A 429 seen while we slept moves the pause: wait again rather than add to the storm.
      if (this.pausedUntil <= this.now()) return;
    }
  }

  /** Every request to this origin and credential waits until `untilMs`. */
  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Reads GitLab's RateLimit-* headers from any response. */
  observe(headers: Record<string, string>): void {
    const remaining = Number(headers["ratelimit-remaining"]);
    const limit = Number(headers["ratelimit-limit"]);
    const reset = Number(headers["ratelimit-reset"]);
    if (!Number.isFinite(remaining) || !Number.isFinite(limit) || !Number.isFinite(reset)) return;
    const untilReset = reset * 1000 - this.now();
    this.adaptiveIntervalMs = remaining <= limit * this.lowWatermark && untilReset > 0 ? untilReset / (remaining + 1) : 0;
  }

  private reserve(): number {
    const now = this.now();
    const interval = Math.max(this.intervalMs, this.adaptiveIntervalMs);
    const start = Math.max(now, this.pausedUntil, this.tat - this.burstWindowMs);
    this.tat = Math.max(this.tat, start) + interval;
    return start - now;
  }
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

export function rateLimitLayer(limiter: RateLimiter): Layer {
  return (next) => async (req) => {
    await limiter.acquire(req.signal);
    const res = await next(req);
    limiter.observe(res.headers);
    return res;
  };
}
