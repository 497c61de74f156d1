/** How long to wait before the next attempt: the server's word first, else exponential backoff with full jitter. */

export interface ServerDelay {
  ms: number;
  /** The header that asked, for messages. */
  header: "Retry-After" | "RateLimit-Reset";
}

/**
 * RFC 9110's HTTP-date, in its three forms: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete
 * RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994"). Only these go to
 * Date.parse, which reads almost anything as some date: "-1" and "1.5" as days in 2001.
 */
const HTTP_DATE = /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/;

/** The time (ms) an HTTP-date header names (`Retry-After`, `Date`), or NaN for anything else. */
export function httpDate(text: string): number {
  if (!HTTP_DATE.test(text)) return NaN;
  // asctime writes no zone, and Date.parse reads such a date as the machine's local time (a laptop's, hours off): it is GMT.
  return Date.parse(text.endsWith(" GMT") ? text : `${text} GMT`);
}

/**
 * The wait a response asks for, or undefined when it names none.
 * `Retry-After` is seconds or an HTTP date; GitLab's `RateLimit-Reset` is a Unix time (seconds), not a delay.
 */
export function serverDelay(headers: Record<string, string>, now: number, opts: { rateLimitReset?: boolean } = {}): ServerDelay | undefined {
  const retryAfter = headers["retry-after"]?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return { ms: Number(retryAfter) * 1000, header: "Retry-After" };
    const at = httpDate(retryAfter);
    if (!Number.isNaN(at)) return { ms: Math.max(0, at - now), header: "Retry-After" };
  }
  const reset = opts.rateLimitReset === false ? undefined : headers["ratelimit-reset"]?.trim();
  if (reset && /^\d+$/.test(reset)) return { ms: Math.max(0, rateLimitResetAt(Number(reset), now) - now), header: "RateLimit-Reset" };
  return undefined;
}

/**
 * When a `RateLimit-Reset` of `value` seconds says the window ends (ms): GitLab writes a Unix time; a
 * gateway in front of it (Kong, express-rate-limit) the IETF draft's seconds to go. Below 1e9 it cannot
 * be a Unix time of this century, so it is the seconds to go. The one reading of the header, for the
 * wait after a 429 and for the budget every answer shows (rate-limiter.ts).
 */
export function rateLimitResetAt(value: number, now: number): number {
  return value < 1e9 ? now + value * 1000 : value * 1000;
}

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base·2^attempt)]. */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}
