export { createHttpClient, type HttpClient, type HttpClientOptions } from "./client.ts";
export { httpError, HttpError, isTerminal, NetworkError, RedirectError, terminalStatus, UnexpectedAnswerError } from "./errors.ts";
export type { ProxySettings, TransportOptions } from "./transport.ts";
export { RateLimiter, RateLimiterRegistry, sharedLimiters, type RateLimiterOptions } from "./rate-limiter.ts";
export { httpDate } from "./retry-delay.ts";
export type { RetryEvent, RetryOptions } from "./retry.ts";
export type { HttpStats, RouteCounters } from "./stats.ts";
export type { HttpRequest, HttpResponse, Method, Send, WaitEvent } from "./types.ts";
export { connectionMeaning, createServiceClient, type ServiceTerms, type SettingNames } from "./explain.ts";
