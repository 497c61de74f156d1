/** Typed failures of lib/http. Every message is built from redacted parts only. */

export interface HttpErrorInit {
  status: number;
  method: string;
  route: string;
  /** Redacted path and query. */
  path: string;
  /** The service's own message, from its JSON `message`/`error` field or its text, redacted. */
  serviceMessage: string;
  headers: Record<string, string>;
}

export class HttpError extends Error {
  override name = "HttpError";
  readonly status: number;
  readonly method: string;
  readonly route: string;
  readonly path: string;
  readonly serviceMessage: string;
  readonly headers: Record<string, string>;

  constructor(init: HttpErrorInit, detail?: string) {
    super(`${init.method} ${init.path} answered ${init.status}${init.serviceMessage ? `: ${init.serviceMessage}` : ""}${detail ? ` (${detail})` : ""}`);
    this.status = init.status;
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

  constructor(init: { code: string; method: string; route: string; path: string; mayHaveReachedServer: boolean; cause?: unknown }) {
    super(`${init.method} ${init.path} failed: ${init.code}`, { cause: init.cause });
    this.code = init.code;
    this.method = init.method;
    this.route = init.route;
    this.path = init.path;
    this.mayHaveReachedServer = init.mayHaveReachedServer;
  }
}

export class RedirectError extends Error {
  override name = "RedirectError";
}

/** Extracts the human part of an error body: GitLab and n8n both use `{"message": …}` (GitLab sometimes nests it). */
export function serviceMessage(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === "object") {
      const { message, error } = body as { message?: unknown; error?: unknown };
      const found = message ?? error;
      if (found !== undefined) return typeof found === "string" ? found : JSON.stringify(found);
    }
  } catch {
    // not JSON: fall through to the text itself
  }
  return text.trim().slice(0, 300);
}
