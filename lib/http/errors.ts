/** Typed failures of lib/http. Every message is built from redacted parts only. */
import { redactThenCut, type Redactor } from "../redact/index.ts";
import { bodyKind, describeKind, formatBytes } from "./body.ts";
import { beyondBounds } from "./json-size.ts";
import type { HttpRequest, HttpResponse } from "./types.ts";

/** The longest service message an error quotes (after redaction: a cut never ends inside a credential). */
export const SERVICE_MESSAGE_MAX = 300;

export interface HttpErrorInit {
  status: number;
  method: string;
  route: string;
  /** Redacted path and query. */
  path: string;
  /** The service's own message, from its JSON `message`/`error` field, its other JSON or its text, redacted. */
  serviceMessage: string;
  headers: Record<string, string>;
}

/**
 * Whether another attempt would meet the same failure. An error says so itself where it is made (a
 * `terminal` property that is true), so retry decisions ask the error rather than keep lists of kinds.
 * Only the error itself is asked, not its causes: an error that wraps another (a deadline that cut a
 * request short) says what it is.
 */
export function isTerminal(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { terminal?: unknown }).terminal === true;
}

/**
 * Whether an answer with this status would be given again: a refusal (4xx) but a timeout (408) or a
 * rate limit (429). A 5xx may pass; lib/http has already retried it as far as its budget allows.
 */
export function terminalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

export class HttpError extends Error {
  override name = "HttpError";
  readonly status: number;
  /** See isTerminal: a refusal another attempt would meet again. */
  readonly terminal: boolean;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  readonly serviceMessage: string;
  readonly headers: Record<string, string>;

  constructor(init: HttpErrorInit, detail?: string) {
    super(`${init.method} ${init.path} answered ${init.status}${init.serviceMessage ? `: ${init.serviceMessage}` : ""}${detail ? ` (${detail})` : ""}`);
    this.status = init.status;
    this.terminal = terminalStatus(init.status);
    this.method = init.method;
    this.route = init.route;
    this.path = init.path;
    this.serviceMessage = init.serviceMessage;
    this.headers = init.headers;
  }
}

export class NetworkError extends Error {
  override name = "NetworkError";
  readonly code: string;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  /** False only when the connection failed before anything was sent: then even a POST is safe to repeat. */
  readonly mayHaveReachedServer: boolean;
  /** The answer's headers had come: the service is there, only its body was lost. */
  readonly afterHeaders: boolean;

  /** `message` replaces the default "GET /path failed: CODE"; it must be built from redacted parts. */
  constructor(init: { code: string; method: string; route: string; path: string; mayHaveReachedServer: boolean; afterHeaders?: boolean; message?: string; cause?: unknown }) {
    super(init.message ?? `${init.method} ${init.path} failed: ${init.code}`, { cause: init.cause });
    this.code = init.code;
    this.method = init.method;
    this.route = init.route;
    this.path = init.path;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
    this.afterHeaders = init.afterHeaders ?? false;
  }
}

export class RedirectError extends Error {
  override name = "RedirectError";
}

/**
 * The answer was not what the API sends: an HTML login page from a sign-in proxy, plain text, a body
 * that is not JSON. Named by request, status, content type and size; the body itself is never quoted.
 */
export class UnexpectedAnswerError extends Error {
  override name = "UnexpectedAnswerError";
  readonly status: number;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  /** The media type alone ("text/html"), or "no content type". */
  readonly contentType: string;
  readonly bytes: number;
  /** "an HTML page", "plain text", … */
  readonly looksLike: string;
  /** Refused for its size alone (more bytes, or more JSON, than Warden reads of one answer): a smaller page of the same listing may pass. */
  readonly tooLarge: boolean;

  constructor(init: { status: number; method: string; route: string; path: string; contentType: string; bytes: number; looksLike: string; tooLarge?: true }, hint?: string) {
    super(`${init.method} ${init.path} answered ${init.status} with ${init.looksLike} (${init.contentType}, ${formatBytes(init.bytes)})${hint ? `: ${hint}` : ""}`);
    this.status = init.status;
    this.method = init.method;
    this.route = init.route;
    this.path = init.path;
    this.contentType = init.contentType;
    this.bytes = init.bytes;
    this.looksLike = init.looksLike;
    this.tooLarge = init.tooLarge === true;
  }
}

/** The HttpError for an answer: the status layer's and the retry layer's (when it gives up) are one. */
export function httpError(req: HttpRequest, res: HttpResponse, redactor: Redactor, detail?: string): HttpError {
  return new HttpError(
    {
      status: res.status,
      method: req.method,
      route: req.route,
      path: redactor.path(res.url),
      serviceMessage: serviceMessage(res.text, res.headers["content-type"]),
      headers: res.headers,
    },
    detail,
  );
}

/**
 * The human part of an error body, redacted and then cut: GitLab and n8n both use `{"message": …}`
 * (GitLab sometimes nests it); other JSON is quoted whole; a proxy's HTML page is only described ("an
 * HTML page, 3.4 kB").
 */
export function serviceMessage(text: string, contentType?: string): string {
  const kind = bodyKind(text, contentType);
  if (kind === "html") return `${describeKind(kind, contentType)}, ${formatBytes(Buffer.byteLength(text))}`;
  return redactThenCut(jsonMessage(text) ?? text.trim(), SERVICE_MESSAGE_MAX);
}

function jsonMessage(text: string): string | undefined {
  // Bounded as an answer the JSON layer parses (json-size.ts): an error's body is the server's too, and
  // `[{},{},…]` of 24 MB would end the process (256 MB of heap) before any error is reported.
  const beyond = beyondBounds(text);
  if (beyond !== undefined) return `JSON of ${beyond}, more than Warden parses of one answer: it was not parsed`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined; // not JSON: the text itself is the message
  }
  const { message, error } = body && typeof body === "object" ? (body as { message?: unknown; error?: unknown }) : {};
  const found = message ?? error;
  if (typeof found === "string") return found;
  // Any other JSON (a message that is no text, a body without one) is written again from its parse, not
  // quoted as sent, so that the server's own escapes (`\u002d`) are undone before redaction.
  try {
    return JSON.stringify(found === undefined ? body : found);
  } catch {
    return "JSON nested too deep to quote"; // JSON.stringify's stack ends where JSON.parse's did not
  }
}

/**
 * Whether a change that failed so may all the same have been made: the request may have reached the
 * server before the connection failed, any 5xx (a proxy's or CDN's too, Cloudflare's 520 and 524 coming
 * after the origin has it), or a 2xx whose body could not be read (a gateway or sign-in proxy replacing
 * GitLab's answer: the 2xx is the server saying it did it). Such a change is checked, never taken as undone.
 */
export function mayHaveBeenMade(err: unknown): boolean {
  return (err instanceof NetworkError && err.mayHaveReachedServer) || (err instanceof HttpError && err.status >= 500) || (err instanceof UnexpectedAnswerError && err.status < 300);
}
