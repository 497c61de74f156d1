/**
 * Keeps credentials out of every message Warden produces. Secrets are replaced wherever they occur;
 * query parameters that carry tokens (GitLab accepts `private_token`) lose their values.
 */

const SENSITIVE_QUERY = /^(private_token|access_token|job_token|token|api_key|apikey|key|secret|signature)$/i;
const MASK = "[REDACTED]";

export interface Redactor {
  text(input: string): string;
  /** Path and query of a URL, safe for errors and logs (no origin, no secret values). */
  path(url: URL): string;
}

export function createRedactor(secrets: Iterable<string>): Redactor {
  // Longest first, so a secret that contains another is masked whole.
  const values = [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  const text = (input: string): string => values.reduce((out, secret) => out.split(secret).join(MASK), input);
  return {
    text,
    path(url) {
      const query = [...url.searchParams]
        .map(([k, v]) => `${encodeURIComponent(k)}=${SENSITIVE_QUERY.test(k) ? MASK : encodeURIComponent(v)}`)
        .join("&");
      return text(url.pathname + (query ? `?${query}` : ""));
    },
  };
}
