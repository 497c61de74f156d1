/**
 * One HTTP client per service and run: the layers composed once around a shared undici Agent.
 * Order, outermost first: status → retry → redirect → JSON → rate limit → deadline → credentials →
 * stats → transport. Retries sit outside redirects so one request's budget and attempts count once
 * across its hops (a hop that fails is retried from the first URL); JSON decoding sits inside retries
 * so a body cut short is repeated; the deadline sits inside the rate limiter (and its limit on the
 * requests in flight) so only time spent on the wire counts against an attempt; credentials sit inside
 * redirects so every hop is judged by its own origin; stats sit innermost so they count what really
 * went on the wire.
 */
import type { Dispatcher } from "undici";
import { credentialsLayer } from "./credentials.ts";
import { deadlineLayer } from "./deadline.ts";
import { jsonLayer } from "./json.ts";
import { createRedactor, type Redactor } from "../redact/index.ts";
import { redirectLayer, type CrossOriginPolicy } from "./redirect.ts";
import { rateLimitLayer } from "./rate-limit-layer.ts";
import { sharedLimiters, type RateLimiter, type RateLimiterOptions, type RateLimiterRegistry } from "./rate-limiter.ts";
import { retryLayer, type Contact, type RetryEvent, type RetryOptions } from "./retry.ts";
import { StatsRecorder, statsLayer } from "./stats.ts";
import { statusLayer } from "./status.ts";
import { createAgent, transport, type TransportOptions } from "./transport.ts";
import type { Layer, Send, WaitEvent } from "./types.ts";
import { WaitReporter } from "./waits.ts";

export interface HttpClientOptions {
  /** Scheme, host and port of the service; every credential is bound to it. */
  origin: string;
  /** Header name → secret, sent only to `origin`, below `apiPath`. */
  credentials?: Record<string, string>;
  /**
   * The path the service's API lives under ("/gitlab/api/v4/"; default "/", the whole origin): a host
   * serving other applications beside it (a GitLab under a path) gets no credential outside it, not even
   * on a redirect there, which then goes without.
   */
  apiPath?: string;
  /** "GitLab", "n8n": how messages name the service (default: the origin's host). */
  service?: string;
  crossOriginRedirects?: CrossOriginPolicy;
  retry?: RetryOptions;
  /**
   * One attempt's deadline, for the headers and the whole body together (default 60 s). A timed-out
   * attempt is a NetworkError; an idempotent request is repeated after one at most once (`retry.maxTimeoutRetries`),
   * and only once the service has answered in this run.
   */
  requestTimeoutMs?: number;
  rateLimit?: RateLimiterOptions;
  limiters?: RateLimiterRegistry;
  transport?: TransportOptions;
  /** Defaults to one keep-alive Agent per process, or one of this client's own when `transport` is given. */
  dispatcher?: Dispatcher;
  onRetry?: (e: RetryEvent) => void;
  /** Hears of every wait a person would notice: retries, rate-limiter holds, slow answers. */
  onWait?: (e: WaitEvent) => void;
  /** Waits shorter than this are not reported to `onWait` (default 10 s). */
  waitNoticeMs?: number;
  /** Appended to the error for an answer that is not JSON where JSON was expected: what to check. */
  notJsonHint?: string;
}

export interface HttpClient {
  readonly origin: string;
  readonly send: Send;
  readonly stats: StatsRecorder;
  readonly redactor: Redactor;
  readonly limiter: RateLimiter;
  /** Whether the service has answered yet (retry.ts): lib/http/explain.ts words a failure to reach it as a setting to fix until then. */
  readonly contact: Readonly<Contact>;
}

let processAgent: Dispatcher | undefined;

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const origin = new URL(opts.origin).origin;
  const credentials = opts.credentials ?? {};
  // Not the proxy's password: a person chose it, and registered it would make every name Warden quotes a
  // test of a guess (a project named like it, masked). No output holds it; lib/redact masks a URL's password by shape.
  const redactor = createRedactor(Object.values(credentials));
  const stats = new StatsRecorder();
  const limiter = (opts.limiters ?? sharedLimiters).get(origin, Object.values(credentials).join("\n"), { maxServerWaitMs: opts.retry?.maxServerWaitMs, ...opts.rateLimit });
  const waits = new WaitReporter({ service: opts.service ?? new URL(origin).host, onWait: opts.onWait, thresholdMs: opts.waitNoticeMs, now: opts.retry?.now });
  // Connection settings live on the Agent: a client that sets them gets an Agent of its own.
  const dispatcher = opts.dispatcher ?? (opts.transport ? createAgent(opts.transport, origin) : (processAgent ??= createAgent()));

  const contact: Contact = { answered: false };
  const layers: Layer[] = [
    statusLayer(redactor),
    retryLayer(opts.retry ?? {}, contact, limiter, stats, redactor, waits, opts.onRetry),
    redirectLayer(origin, opts.crossOriginRedirects ?? "refuse", redactor),
    jsonLayer(redactor, opts.notJsonHint),
    rateLimitLayer(limiter, waits, stats),
    deadlineLayer(opts.requestTimeoutMs ?? 60_000, waits, redactor),
    credentialsLayer(origin, opts.apiPath ?? "/", credentials),
    statsLayer(stats),
  ];
  const send = layers.reduceRight<Send>((inner, layer) => layer(inner), transport(dispatcher, redactor, opts.transport));
  return { origin, send, stats, redactor, limiter, contact };
}
