import type { IncomingMessage, ServerResponse } from "node:http";

/** What a handler answers; `body` is JSON unless it is a string (sent as plain text). */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Thrown by handlers and helpers to answer early with an error reply. */
export class HttpError extends Error {
  readonly reply: Reply;
  constructor(status: number, body: unknown, headers?: Record<string, string>) {
    super(`${status} ${JSON.stringify(body)}`);
    this.reply = headers ? { status, body, headers } : { status, body };
  }
}

/** GitLab's usual error body: `{"message":"404 Project Not Found"}`. */
export const apiError = (status: number, message: unknown): HttpError => new HttpError(status, { message });
export const notFound = (what?: string): HttpError => apiError(404, what ? `404 ${what} Not Found` : "404 Not Found");

const MAX_BODY = 1 << 20;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw apiError(413, "413 Request Entity Too Large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A reply as it goes on the wire: serialised (the simulator's work, done within the latency: server.ts). */
export interface WireReply {
  status: number;
  headers: Record<string, string>;
  payload: string;
}

export function serialise(reply: Reply): WireReply {
  const text = typeof reply.body === "string";
  const payload = reply.body === undefined ? "" : text ? (reply.body as string) : JSON.stringify(reply.body);
  const type: Record<string, string> = payload ? { "content-type": text ? "text/plain; charset=utf-8" : "application/json" } : {};
  return { status: reply.status, headers: { ...type, ...reply.headers }, payload };
}

export function send(res: ServerResponse, wire: WireReply): void {
  if (res.destroyed) return;
  res.writeHead(wire.status, wire.headers);
  res.end(wire.payload);
}
