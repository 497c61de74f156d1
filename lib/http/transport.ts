/** The innermost layer: one undici request, body read whole, network failures typed. */
import type { IncomingHttpHeaders } from "node:http";
import { Agent, EnvHttpProxyAgent, type Dispatcher } from "undici";
import { formatBytes, mediaType } from "./body.ts";
import { NetworkError, UnexpectedAnswerError } from "./errors.ts";
import { AnswerTooLarge, MAX_BODY_BYTES, reading } from "./answer-size.ts";
import { isLoopbackHost } from "./loopback.ts";
import type { Redactor } from "../redact/index.ts";
import type { HttpRequest, Send } from "./types.ts";

/**
 * An egress proxy, as the environment names it (HTTPS_PROXY, HTTP_PROXY, NO_PROXY: the front end reads
 * them, not this library). Given, every request not excepted goes through it (https:// in a CONNECT
 * tunnel, which the proxy cannot read into).
 */
export interface ProxySettings {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
}

export interface TransportOptions {
  /**
   * Per origin (default DEFAULT_CONNECTIONS): undici queues a request above them, so a front end whose
   * job sends more at once gives as many (bin/cli/io.ts, from the concurrency flags).
   */
  connections?: number;
  proxy?: ProxySettings;
  connectTimeoutMs?: number;
  /**
   * undici's per-phase timeouts (the body's is per chunk). Off by default: the deadline layer bounds
   * each attempt as a whole (HttpClientOptions.requestTimeoutMs).
   */
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /**
   * The most of one answer's body read (default 64 MiB, far above the largest the APIs send: a group's
   * detail with its 200 projects, a page of 100 workflows without their pinned data). Past it the answer
   * is refused and not read on: a server or proxy sending without end would otherwise fill the memory
   * long before a deadline ends the request.
   */
  maxBodyBytes?: number;
}


/** Failures that happen before a byte of the request is written: repeating them is safe even for a POST. */
const CONNECT_PHASE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/** TLS failures: a wrong scheme (https:// to a plain-http port) or a certificate the client refuses. */
const TLS_FAILURE = /^(ERR_SSL_|ERR_TLS_|EPROTO$|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_)/;

/**
 * Whether a failure says the service was not reached where it was looked for (refused, no such host, a
 * TLS mismatch): before the service has answered once in a run, that is a setting to fix, not a blip.
 */
export function notReached(code: string): boolean {
  return CONNECT_PHASE.has(code) || TLS_FAILURE.test(code) || proxyRefused(code) !== undefined;
}

/**
 * An egress proxy's refusal, by its status: of a tunnel (CONNECT: every https:// request), or of a request
 * it was to forward (http://: undici tells only a 407 apart). Nothing reached the service. undici says it
 * only in its messages, which are matched here; its code is `PROXY_<status>`.
 */
const PROXY_REFUSAL = [/^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling$/, /^Proxy Authentication Required \((407)\)$/];

/** The proxy's status in a refusal's code (`PROXY_407`), or undefined for any other failure. */
export function proxyRefused(code: string): number | undefined {
  const status = /^PROXY_(\d{3})$/.exec(code)?.[1];
  return status === undefined ? undefined : Number(status);
}

/** The connection closed or reset without an answer: a dropped connection, or `http://` to a TLS port. */
export function closedUnanswered(code: string): boolean {
  return code === "ECONNRESET" || code === "UND_ERR_SOCKET";
}

/**
 * Connections per origin unless told: as many as the jobs' default pools send at once. Not more: a request
 * sent the moment another's answer ended finds that connection not yet handed back, and with connections
 * to spare undici opens one more rather than wait a tick for it; over a real network a new connection
 * costs its TCP and TLS handshakes, round trips a tick's wait does not.
 */
export const DEFAULT_CONNECTIONS = 16;

/** The dispatcher of a client of `origin`: through the egress proxy set, unless `origin` is this machine. */
export function createAgent(opts: TransportOptions = {}, origin?: string): Dispatcher {
  const agent = { connections: opts.connections ?? DEFAULT_CONNECTIONS, keepAliveTimeout: 10_000, connect: { timeout: opts.connectTimeoutMs ?? 10_000 } };
  const proxy = opts.proxy;
  // A loopback address may be plain http:// (lib/config/service-config.ts): through a proxy, its credential would leave the machine in clear.
  if ((!proxy?.httpsProxy && !proxy?.httpProxy) || (origin !== undefined && isLoopbackHost(new URL(origin).hostname))) return new Agent(agent);
  // Each setting given, "" where absent: undici reads the process's environment for any left undefined.
  return new EnvHttpProxyAgent({ ...agent, httpsProxy: proxy.httpsProxy ?? "", httpProxy: proxy.httpProxy ?? "", noProxy: proxy.noProxy ?? "" });
}

/** A proxy's address as a URL, or undefined where none is set (or it is no URL: the front end refuses those). */
export function proxyUrl(address: string | undefined): URL | undefined {
  return address && URL.canParse(address) ? new URL(address) : undefined;
}


/**
 * The hosts of the proxies set (never their passwords), or undefined: whether a request went through one
 * is undici's to decide (NO_PROXY, and an https:// request through HTTP_PROXY where HTTPS_PROXY is not
 * set), so a failure to connect names them without saying it did.
 */
export function proxiesSet(proxy: ProxySettings | undefined): string | undefined {
  const hosts = [...new Set([proxy?.httpsProxy, proxy?.httpProxy].flatMap((address) => proxyUrl(address)?.host ?? []))];
  return hosts.length ? hosts.join(" and ") : undefined;
}

export function transport(dispatcher: Dispatcher, redactor: Redactor, opts: TransportOptions = {}): Send {
  return async (req) => {
    let afterHeaders = false;
    try {
      const res = await exchange(dispatcher, req, opts, () => (afterHeaders = true));
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
      }
      return { status: res.status, headers, url: req.url, text: res.text };
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason ?? err;
      // Not a network failure: the same server would send the same again, so it is not retried.
      if (err instanceof AnswerTooLarge && !err.together) {
        const { status, contentType, bytes, limit } = err;
        throw new UnexpectedAnswerError({ status, method: req.method, route: req.route, path: redactor.path(req.url), contentType: mediaType(contentType), bytes, looksLike: `more than ${formatBytes(limit)}, more than Warden reads of one answer: it was not read further`, tooLarge: true });
      }
      if (err instanceof AnswerTooLarge) {
        // Not this answer's size but what else was being read: another try may find room, as after a lost body
        // (a GET is tried again, lib/http's retry; a POST is not, having reached the server).
        const path = redactor.path(req.url);
        const message = `${req.method} ${path} failed: its answer was not read further, the answers being read at the same time coming to more than ${formatBytes(err.limit)}`;
        throw new NetworkError({ code: "ANSWERS_AT_ONCE", method: req.method, route: req.route, path, mayHaveReachedServer: true, afterHeaders: true, message, cause: err });
      }
      const code = errorCode(err);
      throw new NetworkError({
        code,
        method: req.method,
        route: req.route,
        path: redactor.path(req.url),
        mayHaveReachedServer: !CONNECT_PHASE.has(code) && proxyRefused(code) === undefined,
        afterHeaders,
        cause: err,
      });
    }
  };
}

/**
 * One request and its whole answer, through undici's dispatch API: the body's chunks are kept as they
 * come and decoded once at its end, as undici's `request()` and `body.text()` decode it (UTF-8, a
 * leading BOM dropped) without the Node stream, async-hook scope and listeners `request()` sets up
 * for each answer: about a tenth of a run's CPU where answers are many and large (a dry run over
 * 10,000 projects, `npm run bench`). `answered` is called once the status and headers are in. The
 * run's signal aborts the exchange at any point; every failure is undici's own error, as `request()`
 * would reject with.
 */
function exchange(dispatcher: Dispatcher, req: HttpRequest, opts: TransportOptions, answered: () => void): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const { signal } = req;
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    // This answer's bytes counted in `reading`: given back once, however the exchange ends.
    let held = 0;
    const settle = () => {
      signal?.removeEventListener("abort", abort);
      reading.give(held);
      held = 0;
    };
    // The exchange ends at once with the signal's reason, as undici ends an aborted one, whatever undici does
    // with the abort: through a proxy, a request waits for undici's own CONNECT, which takes no signal (one
    // never answered held it for ever, deadline and Ctrl-C alike). A request not started yet is aborted
    // when it starts (onRequestStart).
    function abort() {
      controller?.abort(signal!.reason);
      settle();
      reject(signal!.reason);
    }
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    const tooLarge = (c: Dispatcher.DispatchController, size: number, together = false) => c.abort(new AnswerTooLarge(status, headers["content-type"], size, together ? reading.limit : limit, together));
    signal?.addEventListener("abort", abort, { once: true });
    try {
      dispatcher.dispatch(
        { origin: req.url.origin, path: `${req.url.pathname}${req.url.search}`, method: req.method, headers: req.headers, body: req.body ?? null, headersTimeout: opts.headersTimeoutMs ?? 0, bodyTimeout: opts.bodyTimeoutMs ?? 0 },
        {
          onRequestStart(c) {
            controller = c;
            if (signal?.aborted) c.abort(signal.reason);
          },
          onResponseStart(c, statusCode, responseHeaders) {
            status = statusCode;
            headers = responseHeaders;
            answered();
            // One that says it is larger is refused before a byte of it is read (a HEAD's length is of a body not sent).
            const declared = Number(responseHeaders["content-length"]);
            if (declared > limit && req.method !== "HEAD") tooLarge(c, declared);
          },
          onResponseData(c, chunk) {
            if (c.aborted) return;
            bytes += chunk.length;
            if (bytes > limit) return tooLarge(c, bytes);
            if (!reading.take(chunk.length)) return tooLarge(c, bytes, true);
            held += chunk.length;
            chunks.push(chunk);
          },
          onResponseEnd() {
            const body = Buffer.concat(chunks);
            const bom = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
            const text = body.toString("utf8", bom);
            // Given back once it is text: its buffers are then garbage.
            settle();
            resolve({ status, headers, text });
          },
          onResponseError(_c, err) {
            settle();
            reject(err);
          },
        },
      );
    } catch (err) {
      settle();
      reject(err);
    }
  });
}

function errorCode(err: unknown): string {
  const message = err instanceof Error ? err.message : "";
  const refusal = PROXY_REFUSAL.map((pattern) => pattern.exec(message)?.[1]).find((status) => status !== undefined);
  if (refusal !== undefined) return `PROXY_${refusal}`;
  const seen = new Set<unknown>();
  // undici wraps socket errors; the useful code may sit on a cause.
  for (let e = err; e && typeof e === "object" && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR") return code;
  }
  return "UNKNOWN";
}
