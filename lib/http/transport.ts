/** The innermost layer: one undici request, body read whole, network failures typed. */
import { Agent, request, type Dispatcher } from "undici";
import { NetworkError } from "./errors.ts";
import type { Redactor } from "../redact/index.ts";
import type { Send } from "./types.ts";

export interface TransportOptions {
  /** Per origin. GitLab.com and n8n both cope well with a handful of keep-alive connections. */
  connections?: number;
  connectTimeoutMs?: number;
  /**
   * undici's per-phase timeouts (the body's is per chunk). Off by default: the deadline layer bounds
   * each attempt as a whole (HttpClientOptions.requestTimeoutMs).
   */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** Failures that happen before a byte of the request is written: repeating them is safe even for a POST. */
const CONNECT_PHASE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

export function createAgent(opts: TransportOptions = {}): Agent {
  return new Agent({
    connections: opts.connections ?? 16,
    keepAliveTimeout: 10_000,
    connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
  });
}

export function transport(dispatcher: Dispatcher, redactor: Redactor, opts: TransportOptions = {}): Send {
  return async (req) => {
    try {
      const res = await request(req.url, {
        dispatcher,
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: req.signal,
        headersTimeout: opts.headersTimeoutMs ?? 0,
        bodyTimeout: opts.bodyTimeoutMs ?? 0,
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
      }
      return { status: res.statusCode, headers, url: req.url, text: await res.body.text() };
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      const code = errorCode(err);
      throw new NetworkError({
        code,
        method: req.method,
        route: req.route,
        path: redactor.path(req.url),
        mayHaveReachedServer: !CONNECT_PHASE.has(code),
        cause: err,
      });
    }
  };
}

function errorCode(err: unknown): string {
  const seen = new Set<unknown>();
  // undici wraps socket errors; the useful code may sit on a cause.
  for (let e = err; e && typeof e === "object" && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR") return code;
  }
  return "UNKNOWN";
}
