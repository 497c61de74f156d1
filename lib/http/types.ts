/** The request/response shapes every layer of lib/http speaks. */
import type { FieldsKept } from "./json-fields.ts";

export type Method = "GET" | "HEAD" | "OPTIONS" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface HttpRequest {
  method: Method;
  /** Absolute URL. Credentials are never part of it: the credentials layer adds them per hop. */
  url: URL;
  /** Route label for counters and errors, e.g. "GET /projects/:id". */
  route: string;
  headers?: Record<string, string>;
  /** A serialised body (JSON), so a retry can send it again. */
  body?: string;
  /** Statuses the caller handles itself instead of receiving an HttpError (e.g. 404 on unshare). */
  accept?: readonly number[];
  /**
   * "json": the answer must be JSON (lib/http/json.ts). Its parsed value comes back as `json`; any other
   * answer is an UnexpectedAnswerError, and a JSON body cut short is retried like a dropped connection.
   */
  expect?: "json";
  /** Of a JSON answer, the fields the caller reads (json-fields.ts): the rest is passed over unparsed. */
  fields?: FieldsKept;
  signal?: AbortSignal;
  /** 1-based; set by the retry layer so the layers inside it can say which attempt they report on. */
  attempt?: number;
  /**
   * Set by the retry layer: if this attempt times out, one more follows after at most this wait;
   * undefined, a timeout ends the request. The deadline layer's notice says when it is really given up.
   */
  retryAfterTimeoutMs?: number;
  /** Set by the retry layer: when the request's budget (RetryOptions.budgetMs) ends, on its clock; the rate limiter holds it no later. */
  budgetEndsAt?: number;
}

export interface HttpResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The URL that answered, after redirects. */
  url: URL;
  /** The whole body: every body is consumed, error bodies included, so sockets go back to the pool. */
  text: string;
  /** The parsed body, for a request sent with `expect: "json"` (undefined for an empty 204). */
  json?: unknown;
  /**
   * Set by the retry layer when an earlier attempt of this request may have reached the server and
   * been applied there (a 5xx, or a connection lost after sending): a DELETE answered 404 then most
   * likely found what *this* run removed.
   */
  earlierAttemptMayHaveApplied?: boolean;
}

/**
 * A wait long enough for a person to notice (lib/http reports those above about 10 s): a retry's
 * backoff, a server's Retry-After, the rate limiter holding requests back, or an answer slow to come.
 * `message` is complete and redacted, e.g. "GitLab asked to wait 60 s (Retry-After) on GET
 * /groups/:id/projects; resuming at 12:03:04 UTC". Built by lib/http/waits.ts.
 */
export interface WaitEvent {
  kind: "retry" | "rate-limit" | "slow-answer";
  method: string;
  route: string;
  attempt: number;
  waitMs: number;
  message: string;
}

export type Send = (req: HttpRequest) => Promise<HttpResponse>;
export type Layer = (next: Send) => Send;

export const IDEMPOTENT_METHODS: ReadonlySet<Method> = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
