/**
 * One HTTP client per service and run: the layers composed once around a shared undici Agent.
 * Order, outermost first: status → redirect → retry → rate limit → credentials → stats → transport.
 * Redirects sit outside retries so each hop is retried on its own; credentials sit inside redirects so
 * every hop is judged by its own origin; stats sit innermost so they count what really went on the wire.
 */
import type { Dispatcher } from "undici";
import { credentialsLayer } from "./credentials.ts";
import { createRedactor, type Redactor } from "../redact/index.ts";
import { redirectLayer, type CrossOriginPolicy } from "./redirect.ts";
import { rateLimitLayer, sharedLimiters, type RateLimiter, type RateLimiterOptions, type RateLimiterRegistry } from "./rate-limiter.ts";
import { retryLayer, type RetryEvent, type RetryOptions } from "./retry.ts";
import { StatsRecorder, statsLayer } from "./stats.ts";
import { statusLayer } from "./status.ts";
import { createAgent, transport, type TransportOptions } from "./transport.ts";
import type { Layer, Send } from "./types.ts";

export interface HttpClientOptions {
  /** Scheme, host and port of the service; every credential is bound to it. */
  origin: string;
  /** Header name → secret, sent only to `origin`. */
  credentials?: Record<string, string>;
  crossOriginRedirects?: CrossOriginPolicy;
  retry?: RetryOptions;
  rateLimit?: RateLimiterOptions;
  limiters?: RateLimiterRegistry;
  transport?: TransportOptions;
  /** Defaults to one keep-alive Agent per process, or one of this client's own when `transport` is given. */
  dispatcher?: Dispatcher;
  onRetry?: (e: RetryEvent) => void;
}

export interface HttpClient {
  readonly origin: string;
  readonly send: Send;
  readonly stats: StatsRecorder;
  readonly redactor: Redactor;
  readonly limiter: RateLimiter;
}

let processAgent: Dispatcher | undefined;

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const origin = new URL(opts.origin).origin;
  const credentials = opts.credentials ?? {};
  const redactor = createRedactor(Object.values(credentials));
  const stats = new StatsRecorder();
  const limiter = (opts.limiters ?? sharedLimiters).get(origin, Object.values(credentials).join("\n"), opts.rateLimit);
  // Connection settings live on the Agent: a client that sets them gets an Agent of its own.
  const dispatcher = opts.dispatcher ?? (opts.transport ? createAgent(opts.transport) : (processAgent ??= createAgent()));

  const layers: Layer[] = [
    statusLayer(redactor),
    redirectLayer(origin, opts.crossOriginRedirects ?? "refuse", redactor),
    retryLayer(opts.retry ?? {}, limiter, stats, redactor, opts.onRetry),
    rateLimitLayer(limiter),
    credentialsLayer(origin, credentials),
    statsLayer(stats),
  ];
  const send = layers.reduceRight<Send>((inner, layer) => layer(inner), transport(dispatcher, redactor, opts.transport));
  return { origin, send, stats, redactor, limiter };
}
