import type { Reply } from "./http.ts";
import { retryHeaders, tooManyRequests } from "./retry-headers.ts";

export interface RateLimitRule {
  /** A route key such as "GET /projects"; omitted = every authenticated request. */
  route?: string;
  limit: number;
  windowMs: number;
  /**
   * What a 429 carries (default "full", rack-attack's throttles). "endpoint" is GitLab's per-endpoint
   * application limit (GitLab.com's 400/min on GET /groups/:id): a JSON body, `Retry-After` of the
   * window's length and no RateLimit-* headers, on 429s or successes.
   */
  headers?: "full" | "retry-after-only" | "reset-only" | "none" | "endpoint";
  /**
   * Whether successful answers carry the budget too (RateLimit-Limit/-Remaining/-Reset; default true
   * under "full"). GitLab sends them only on 429s unless a newer instance enables them for every answer.
   */
  advertise?: boolean;
}

const ENDPOINT_THROTTLED = "This endpoint has been requested too many times. Try again later.";

interface Window {
  start: number;
  count: number;
}

/**
 * Fixed windows per rule and token, each opened by its first request (so tests never straddle a
 * boundary by chance). Throttled requests count too, as with rack-attack.
 */
export class RateLimiter {
  private rules: readonly RateLimitRule[] = [];
  private readonly windows = new Map<string, Window>();

  constructor(rules: readonly RateLimitRule[] = []) {
    this.set(rules);
  }

  set(rules: readonly RateLimitRule[]): void {
    this.rules = rules;
    this.windows.clear();
  }

  /** Either the 429 to send, or the headers to add to the answer. */
  check(routeKey: string, token: string | null, now = Date.now()): { reject: Reply } | { headers: Record<string, string> } {
    let headers: Record<string, string> = {};
    let lowest = Number.POSITIVE_INFINITY;
    for (const [index, rule] of this.rules.entries()) {
      if (rule.route ? rule.route !== routeKey : token === null) continue;
      const key = `${index}\n${token ?? ""}`;
      let window = this.windows.get(key);
      if (!window || now >= window.start + rule.windowMs) this.windows.set(key, (window = { start: now, count: 0 }));
      window.count++;
      const resetAt = window.start + rule.windowMs;
      const style = rule.headers ?? "full";
      if (window.count > rule.limit) {
        const headers = rejectHeaders(rule, style, window.count, resetAt, now);
        return { reject: style === "endpoint" ? { status: 429, headers, body: { message: { error: ENDPOINT_THROTTLED } } } : tooManyRequests(headers) };
      }
      const remaining = rule.limit - window.count;
      if (style === "full" && (rule.advertise ?? true) && remaining < lowest) {
        lowest = remaining;
        headers = { "ratelimit-limit": String(rule.limit), "ratelimit-remaining": String(remaining), ...retryHeaders("reset-only", resetAt, now) };
      }
    }
    return { headers };
  }
}

function rejectHeaders(rule: RateLimitRule, style: NonNullable<RateLimitRule["headers"]>, observed: number, resetAt: number, now: number) {
  switch (style) {
    case "full":
      return {
        "ratelimit-name": rule.route ? `throttle ${rule.route}` : "throttle_authenticated_api",
        "ratelimit-limit": String(rule.limit),
        "ratelimit-observed": String(observed),
        "ratelimit-remaining": "0",
        "ratelimit-resettime": new Date(resetAt).toUTCString(),
        ...retryHeaders("reset-only", resetAt, now),
        ...retryHeaders("retry-after", resetAt, now),
      };
    case "retry-after-only":
      return retryHeaders("retry-after", resetAt, now);
    case "endpoint":
      return { "retry-after": String(Math.ceil(rule.windowMs / 1000)) };
    default:
      return retryHeaders(style, resetAt, now);
  }
}
