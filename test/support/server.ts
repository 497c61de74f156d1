/** A scripted loopback server for transport-level cases (the simulators model the services themselves). */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterTest } from "./cleanup.ts";

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
  /** The client's port: one value across requests means one reused connection. */
  port: number | undefined;
}

export interface ScriptedServer {
  url: string;
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

export async function scriptedServer(
  handler: (req: IncomingMessage & { body: string; url: string }, res: ServerResponse, n: number) => void,
): Promise<ScriptedServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now(), port: req.socket.remotePort });
      handler(Object.assign(req, { body, url: req.url! }), res, received.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    origin,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export type ScriptedHandler = Parameters<typeof scriptedServer>[0];

/** A scripted server, closed after the test that started it (test/support/cleanup.ts). */
export async function serve(handler: ScriptedHandler): Promise<ScriptedServer> {
  return afterTest.add(await scriptedServer(handler));
}
