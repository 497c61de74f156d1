/**
 * Shared helpers of the spec-conformance suites: Warden's clients wired for tests, a tap that records
 * what came back to a client, and a reverse proxy to put in front of a simulator. Everything runs over
 * real loopback sockets; nothing here answers in place of a simulator.
 */
import { createServer, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { GitLabClient, type GitLabClientOptions } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry, type HttpClient, type HttpResponse, type Send } from "../../lib/http/index.ts";
import { N8nClient, type N8nClientOptions } from "../../lib/n8n/index.ts";

/** A GitLab client with its own limiters (no budget shared across tests) and fast retries. */
export function gitlabClient(url: string, token: string, opts: Partial<GitLabClientOptions> = {}): GitLabClient {
  return new GitLabClient({ limiters: new RateLimiterRegistry(), ...opts, url, token, retry: { baseDelayMs: 5, ...opts.retry } });
}

export function n8nClient(url: string, apiKey: string, opts: Partial<N8nClientOptions> = {}): N8nClient {
  return new N8nClient({ limiters: new RateLimiterRegistry(), ...opts, url, apiKey, retry: { baseDelayMs: 5, ...opts.retry } });
}

/** One response as the client received it (after redirects and retries). */
export interface Seen {
  url: URL;
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Records every response that reaches the client's callers, in order, leaving requests and responses
 * untouched: the tests compare "the Link a page carried" with "the request Warden made next".
 */
export function tap(http: HttpClient): Seen[] {
  const seen: Seen[] = [];
  const inner: Send = http.send;
  const send: Send = async (req) => {
    const res: HttpResponse = await inner(req);
    seen.push({ url: res.url, status: res.status, headers: res.headers, text: res.text });
    return res;
  };
  Object.defineProperty(http, "send", { value: send, configurable: true, writable: true });
  return seen;
}

/** The `rel="next"` URL of a Link header, parsed here independently of lib/paging. */
export function nextLinkOf(headers: Record<string, string>): string | undefined {
  return /<([^>]*)>\s*;\s*rel="?next"?/.exec(headers["link"] ?? "")?.[1];
}

/** Path and query of an absolute or origin-relative URL, as a server sees it on the request line. */
export function requestTarget(url: string | URL): string {
  const u = new URL(url, "http://placeholder");
  return u.pathname + u.search;
}

/** The query of a recorded request URL. */
export function queryOf(url: string): URLSearchParams {
  return new URL(url, "http://placeholder").searchParams;
}

/** The raw query string of a recorded request URL, without `?`. */
export function rawQueryOf(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? "" : url.slice(q + 1);
}

export function headerValue(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

export interface ProxyOptions {
  /** The simulator's origin, e.g. "http://127.0.0.1:1234". */
  target: string;
  /** Served under this path ("/gitlab"): stripped on the way in, added to Link and Location on the way out. */
  prefix?: string;
  /** Behave like a misconfigured intermediary that decodes the path (%2F → /) before forwarding. */
  decodePath?: boolean;
  /** Edits response headers (lower-case names) after the prefix rewrite; `target` is the request's path and query as received. */
  rewrite?: (headers: Record<string, string>, target: string) => void;
  /**
   * What the proxy sends upstream for a request's path and query (after the prefix is stripped): another
   * path (a parameter dropped, say), or an answer of its own that never reaches upstream.
   */
  forward?: (path: string, method: string) => string | ProxyAnswer;
  /** An answer in place of upstream's (`status`: upstream's), after upstream has done the request; undefined keeps upstream's. */
  answer?: (upstream: ProxyAnswer, target: string, method: string) => ProxyAnswer | undefined;
}

/** An answer the proxy sends: its status, content type and body. */
export interface ProxyAnswer {
  status: number;
  contentType?: string;
  body: string;
}

export interface Proxy {
  /** The proxy's origin, without the prefix. */
  url: string;
  /** Request lines as the proxy received them. */
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host"]);

/** A reverse proxy in front of a simulator, as GitLab or n8n often sit behind one. */
export async function startProxy(opts: ProxyOptions): Promise<Proxy> {
  const prefix = opts.prefix ?? "";
  const requests: Proxy["requests"] = [];
  let origin = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received = req.url ?? "/";
      requests.push({ method: req.method ?? "GET", url: received });
      if (!received.startsWith(`${prefix}/`)) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not behind this prefix");
        return;
      }
      let path = received.slice(prefix.length);
      if (opts.decodePath) {
        const q = path.indexOf("?");
        path = q < 0 ? decodeURIComponent(path) : decodeURIComponent(path.slice(0, q)) + path.slice(q);
      }
      const method = req.method ?? "GET";
      const forwarded = opts.forward?.(path, method) ?? path;
      if (typeof forwarded !== "string") {
        res.writeHead(forwarded.status, { "content-type": forwarded.contentType ?? "application/json" }).end(forwarded.body);
        return;
      }
      path = forwarded;
      const body = Buffer.concat(chunks);
      const headers: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
      if (body.length > 0) headers["content-length"] = body.length;
      const target = new URL(opts.target);
      const relay = (up: IncomingMessage): void => {
        const parts: Buffer[] = [];
        up.on("data", (c: Buffer) => parts.push(c));
        up.on("end", () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(up.headers)) {
            if (HOP_BY_HOP.has(k) || v === undefined) continue;
            out[k] = Array.isArray(v) ? v.join(", ") : v;
          }
          for (const name of ["link", "location"]) {
            if (out[name]) out[name] = out[name].split(opts.target).join(origin + prefix);
          }
          opts.rewrite?.(out, received);
          const upstream: ProxyAnswer = { status: up.statusCode ?? 502, ...(out["content-type"] !== undefined && { contentType: out["content-type"] }), body: Buffer.concat(parts).toString("utf8") };
          const own = opts.answer?.(upstream, received, method);
          if (own === undefined) res.writeHead(upstream.status, out).end(Buffer.concat(parts));
          else res.writeHead(own.status, { ...out, "content-type": own.contentType ?? "application/json" }).end(own.body);
        });
      };
      let upstream: ClientRequest;
      try {
        upstream = httpRequest({ hostname: target.hostname, port: target.port, method: req.method, path, headers }, relay);
      } catch {
        // A decoded path Node will not put on a request line (a space, say): the intermediary gives up.
        res.writeHead(400, { "content-type": "text/plain" }).end("bad request");
        return;
      }
      upstream.on("error", () => res.writeHead(502).end("bad gateway"));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
