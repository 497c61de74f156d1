/**
 * The one redaction point, a leaf module that lib/http and the front ends both use. Every credential
 * Warden holds is registered here (each HTTP client registers its own; the front ends register what
 * they read from the environment or a secret before doing anything else), and every text that leaves
 * the process — stderr, the report, audit lines, Lambda logs, Slack posts, stored reports — passes
 * `redactOutput` (or `redactStrings`, for a JSON payload) on its way out. lib/http's errors are
 * redacted here too when they are built, so a message is already clean wherever it travels.
 *
 * Redaction masks every run of 6 or more characters that also occurs in a credential, not only whole
 * credentials: a service may echo part of one, and a message cut short may end inside one. Redact the
 * whole text first, then cut it (`redactThenCut`), never the other way round.
 */

/** Runs of this many characters of a credential are masked wherever they appear. */
export const MIN_FRAGMENT = 6;
const MASK = "[REDACTED]";
const SENSITIVE_QUERY = /^(private_token|access_token|job_token|token|api_key|apikey|key|secret|signature)$/i;

export class SecretRegistry {
  /** Every MIN_FRAGMENT-long substring of every registered credential. */
  private readonly grams = new Set<string>();
  /** Credentials too short to have such substrings (4–5 characters): masked whole. */
  private readonly short = new Set<string>();

  add(secret: string | undefined): void {
    if (!secret || secret.length < 4) return;
    if (secret.length < MIN_FRAGMENT) this.short.add(secret);
    for (let i = 0; i + MIN_FRAGMENT <= secret.length; i++) this.grams.add(secret.slice(i, i + MIN_FRAGMENT));
  }

  redact(text: string): string {
    if (this.grams.size === 0 && this.short.size === 0) return text;
    // Runs [start, end) covered by overlapping fragments, found left to right.
    const runs: [number, number][] = [];
    for (let i = 0; i + MIN_FRAGMENT <= text.length; i++) {
      if (!this.grams.has(text.slice(i, i + MIN_FRAGMENT))) continue;
      const last = runs.at(-1);
      if (last && i <= last[1]) last[1] = i + MIN_FRAGMENT;
      else runs.push([i, i + MIN_FRAGMENT]);
    }
    let out = "";
    let copied = 0;
    for (const [start, end] of runs) {
      out += text.slice(copied, start) + MASK;
      copied = end;
    }
    out += text.slice(copied);
    for (const secret of this.short) out = out.split(secret).join(MASK);
    return out;
  }
}

/** The process's credentials: in a warm Lambda or a CLI run, every credential it has held. */
export const processSecrets = new SecretRegistry();

export function registerSecret(secret: string | undefined): void {
  processSecrets.add(secret);
}

/** Masks every registered credential, and every fragment of one, in `text`. */
export function redactOutput(text: string): string {
  return processSecrets.redact(text);
}

/**
 * `value` with every string in it redacted: for a payload about to leave the process as JSON (a Slack
 * post, a stored report, a log line). Strings rather than the JSON text, so a mask can never land
 * inside one of JSON's escapes and break the document.
 */
export function redactStrings<T>(value: T): T {
  if (typeof value === "string") return redactOutput(value) as T;
  if (Array.isArray(value)) return value.map(redactStrings) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v)])) as T;
  return value;
}

/** Redacts the whole text, then cuts it to `max` characters (on a code point), marking the cut. */
export function redactThenCut(text: string, max: number): string {
  const clean = redactOutput(text);
  if (clean.length <= max) return clean;
  const cut = Array.from(clean.slice(0, max + 1)).slice(0, -1).join("").slice(0, max);
  return `${cut}… (${clean.length - cut.length} more characters)`;
}

export interface Redactor {
  text(input: string): string;
  /** Path and query of a URL, safe for errors and logs (no origin, no secret values). */
  path(url: URL): string;
}

/** Registers `secrets` and returns the redactor lib/http's layers build their messages with. */
export function createRedactor(secrets: Iterable<string>): Redactor {
  for (const secret of secrets) registerSecret(secret);
  return {
    text: redactOutput,
    path(url) {
      const query = [...url.searchParams]
        .map(([k, v]) => `${encodeURIComponent(k)}=${SENSITIVE_QUERY.test(k) ? MASK : encodeURIComponent(v)}`)
        .join("&");
      return redactOutput(url.pathname + (query ? `?${query}` : ""));
    },
  };
}
