/**
 * A front proxy's request limit, as nginx's `limit_req` (with `nodelay` and `limit_req_status 429`) or a
 * throttle whose headers a proxy strips: a token bucket over every request, refused ones not counted,
 * answering a 429 that carries no header at all.
 */
import { tooManyRequests } from "./retry-headers.ts";
import type { Reply } from "./http.ts";

export interface TokenBucketOptions {
  ratePerSecond: number;
  /** Requests allowed back to back (the bucket's size). */
  burst: number;
}

export class TokenBucket {
  private readonly opts: TokenBucketOptions;
  private tokens: number;
  private refilledAt: number;

  constructor(opts: TokenBucketOptions, now = Date.now()) {
    this.opts = opts;
    this.tokens = opts.burst;
    this.refilledAt = now;
  }

  /** The bare 429 to send, or undefined when the request may pass (its token taken). */
  take(now = Date.now()): Reply | undefined {
    this.tokens = Math.min(this.opts.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.opts.ratePerSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return tooManyRequests({});
    this.tokens--;
    return undefined;
  }
}
