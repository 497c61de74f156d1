/**
 * Retries what is safe to repeat. Idempotent methods: 429, 5xx gateway errors (500 too for GET/HEAD)
 * and network failures. Anything else (a pipeline POST): only a 429, or a connection that failed before
 * a byte was sent — never something that may have reached the server.
 */
import { sleep } from "./sleep.ts";
import { HttpError, NetworkError, serviceMessage } from "./errors.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { backoffMs, serverDelayMs } from "./retry-delay.ts";
import type { Redactor } from "../redact/index.ts";
import type { StatsRecorder } from "./stats.ts";
import { IDEMPOTENT_METHODS, type HttpRequest, type HttpResponse, type Layer } from "./types.ts";

export interface RetryOptions {
  /** Attempts after the first. */
  maxRetries?: number;
  baseDelayMs?: number;
  /** Cap of our own backoff. */
  maxBackoffMs?: number;
  /** Bare 429s (no header says how long) back off from this base: GitLab's windows are a minute long. */
  rateLimitedBaseMs?: number;
  /** The longest single wait a server may ask for; GitLab asks for 60–900 s. Longer asks fail at once. */
  maxServerWaitMs?: number;
  /** Total time one request may spend waiting between attempts. */
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

const GATEWAY = new Set([502, 503, 504]);
/** Bare 429s back off further than other failures: GitLab's windows last a minute or more. */
const RATE_LIMITED_CAP_MS = 120_000;

export function retryLayer(
  opts: RetryOptions,
  limiter: RateLimiter,
  stats: StatsRecorder,
  redactor: Redactor,
  onRetry?: (e: RetryEvent) => void,
): Layer {
  const maxRetries = opts.maxRetries ?? 6;
  const base = opts.baseDelayMs ?? 250;
  const cap = opts.maxBackoffMs ?? 30_000;
  const rateLimitedBase = opts.rateLimitedBaseMs ?? 2_000;
  const maxServerWait = opts.maxServerWaitMs ?? 900_000;
  const budget = opts.budgetMs ?? 1_800_000;
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;

  return (next) => async (req) => {
    let waited = 0;
    let mayHaveApplied = false;
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse | undefined;
      let decision: { waitMs: number; reason: string } | undefined;
      let reached = false;
      try {
        res = await next(req);
        decision = decide(req, res, attempt);
      } catch (err) {
        if (!(err instanceof NetworkError) || !networkRetryable(req, err)) throw err;
        reached = err.mayHaveReachedServer;
        decision = { waitMs: backoffMs(attempt, base, cap, random), reason: err.code };
        if (attempt >= maxRetries || waited + decision.waitMs > budget) throw err;
      }
      if (!decision) return mayHaveApplied ? { ...res!, earlierAttemptMayHaveApplied: true } : res!;
      // A 429 was refused before anything happened; a 5xx or a lost connection may follow a change made.
      if (res ? res.status >= 500 : reached) mayHaveApplied = true;
      if (res && (attempt >= maxRetries || decision.waitMs > maxServerWait || waited + decision.waitMs > budget)) {
        throw new HttpError(
          { status: res.status, method: req.method, route: req.route, path: redactor.path(req.url), serviceMessage: redactor.text(serviceMessage(res.text)), headers: res.headers },
          decision.waitMs > maxServerWait
            ? `asked to wait ${Math.ceil(decision.waitMs / 1000)} s, above the ${maxServerWait / 1000} s ceiling`
            : `gave up after ${attempt + 1} attempts`,
        );
      }
      // The budget is shared on the server: hold back every request to this origin, not only this one.
      if (res?.status === 429) limiter.pause(now() + decision.waitMs);
      waited += decision.waitMs;
      stats.count(req.route, "retries");
      onRetry?.({ route: req.route, method: req.method, attempt: attempt + 1, ...decision });
      await sleep(decision.waitMs, req.signal);
    }
  };

  function decide(req: HttpRequest, res: HttpResponse, attempt: number): { waitMs: number; reason: string } | undefined {
    if (res.status === 429) {
      const asked = serverDelayMs(res.headers, now());
      // Equal jitter, not full: a bare 429 answered at once would only burn more of the window.
      const waitMs = asked ?? Math.floor(Math.min(RATE_LIMITED_CAP_MS, rateLimitedBase * 2 ** attempt) * (0.5 + random() / 2));
      return { waitMs, reason: asked === undefined ? "429 without Retry-After" : "429" };
    }
    const idempotent = IDEMPOTENT_METHODS.has(req.method);
    if ((idempotent && GATEWAY.has(res.status)) || (res.status === 500 && (req.method === "GET" || req.method === "HEAD"))) {
      // Retry-After only: RateLimit-Reset, which GitLab may send on any answer, is about the rate budget.
      const asked = serverDelayMs(res.headers, now(), { rateLimitReset: false });
      return { waitMs: asked ?? backoffMs(attempt, base, cap, random), reason: String(res.status) };
    }
    return undefined;
  }
}

function networkRetryable(req: HttpRequest, err: NetworkError): boolean {
  return IDEMPOTENT_METHODS.has(req.method) || !err.mayHaveReachedServer;
}
