/** The request/response shapes every layer of lib/http speaks. */

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

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
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The URL that answered, after redirects. */
  url: URL;
  /** The whole body: every body is consumed, error bodies included, so sockets go back to the pool. */
  text: string;
}

export type Send = (req: HttpRequest) => Promise<HttpResponse>;
export type Layer = (next: Send) => Send;

export const IDEMPOTENT_METHODS: ReadonlySet<Method> = new Set(["GET", "HEAD", "PUT", "DELETE"]);
