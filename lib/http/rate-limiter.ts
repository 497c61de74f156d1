/**
 * One limiter per origin and credential, shared by every client and listing that uses them: a token
 * bucket for the configured rate, the server's own budget (`RateLimit-Remaining` until
 * `RateLimit-Reset`) spread out as it runs low, and a pause of everything when any request gets a 429.
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
  private readonly burst: number;
  private readonly lowWatermark: number;
  private readonly now: () => number;
  /** Token bucket for the configured rate. */
  private tokens: number;
  private refilledAt: number;
  /** Acquisitions take turns, so a gap is computed from the latest state, never reserved ahead. */
  private turn: Promise<void> = Promise.resolve();
  private lastStart = -Infinity;
  private pausedUntil = 0;
  /** The server's budget as last reported, counted down locally as requests leave. */
  private budget?: { remaining: number; limit: number; resetAt: number };

  constructor(opts: RateLimiterOptions = {}, now: () => number = Date.now) {
    const rate = opts.ratePerSecond ?? Infinity;
    this.intervalMs = rate === Infinity ? 0 : 1000 / rate;
    this.burst = Math.max(1, opts.burst ?? 1);
    this.lowWatermark = opts.lowWatermark ?? 0.1;
    this.now = now;
    this.tokens = this.burst;
    this.refilledAt = now();
  }

  acquire(signal?: AbortSignal): Promise<void> {
    const mine = this.turn.then(() => this.waitForTurn(signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  /** Every request to this origin and credential waits until `untilMs`. */
  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Reads GitLab's RateLimit-* headers from any response. */
  observe(headers: Record<string, string>): void {
    const remaining = Number(headers["ratelimit-remaining"]);
    const limit = Number(headers["ratelimit-limit"]);
    const resetAt = Number(headers["ratelimit-reset"]) * 1000;
    if (!Number.isFinite(remaining) || !Number.isFinite(limit) || !Number.isFinite(resetAt)) return;
    // Answers arrive out of order: within one window the lowest count is the freshest.
    const sameWindow = this.budget !== undefined && this.budget.resetAt === resetAt;
    this.budget = { remaining: sameWindow ? Math.min(remaining, this.budget!.remaining) : remaining, limit, resetAt };
  }

  private async waitForTurn(signal?: AbortSignal): Promise<void> {
    for (let now = this.now(); ; now = this.now()) {
      this.refill(now);
      const at = Math.max(this.pausedUntil, this.tokens >= 1 ? now : now + (1 - this.tokens) * this.intervalMs, this.lastStart + this.serverGap(now));
      if (at <= now) break;
      await sleep(at - now, signal);
    }
    this.lastStart = this.now();
    this.tokens -= this.intervalMs > 0 ? 1 : 0;
    if (this.budget && this.budget.remaining > 0) this.budget.remaining--;
  }

  /**
   * The gap the server's budget asks for: none while it is ample or unknown; the time left spread
   * evenly over what remains once it runs low; the rest of the window once it is spent.
   */
  private serverGap(now: number): number {
    const b = this.budget;
    if (!b || now >= b.resetAt) return 0;
    if (b.remaining === 0) return b.resetAt - this.lastStart;
    return b.remaining <= b.limit * this.lowWatermark ? (b.resetAt - now) / (b.remaining + 1) : 0;
  }

  private refill(now: number): void {
    if (this.intervalMs === 0) return;
    this.tokens = Math.min(this.burst, this.tokens + (now - this.refilledAt) / this.intervalMs);
    this.refilledAt = now;
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
