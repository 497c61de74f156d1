/** How long to wait before the next attempt: the server's word first, else exponential backoff with full jitter. */

export interface ServerDelay {
  ms: number;
  /** The header that asked, for messages. */
  header: "Retry-After" | "RateLimit-Reset";
}

/**
 * The wait a response asks for, or undefined when it names none.
 * `Retry-After` is seconds or an HTTP date; GitLab's `RateLimit-Reset` is a Unix time (seconds), not a delay.
 */
export function serverDelay(headers: Record<string, string>, now: number, opts: { rateLimitReset?: boolean } = {}): ServerDelay | undefined {
  const retryAfter = headers["retry-after"]?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return { ms: Number(retryAfter) * 1000, header: "Retry-After" };
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return { ms: Math.max(0, at - now), header: "Retry-After" };
  }
  const reset = opts.rateLimitReset === false ? undefined : headers["ratelimit-reset"]?.trim();
  if (reset && /^\d+$/.test(reset)) {
    const value = Number(reset);
    // Below 1e9 it cannot be a Unix time of this century: the IETF draft's delta-seconds form.
    return { ms: Math.max(0, value < 1e9 ? value * 1000 : value * 1000 - now), header: "RateLimit-Reset" };
  }
  return undefined;
}

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base·2^attempt)]. */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}
