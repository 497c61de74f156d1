/**
 * A forward proxy on loopback that sends every request, whatever host it names, to `upstream` (plain
 * requests in absolute form, and CONNECT tunnels), recording what reached it: "GET http://…" or
 * "CONNECT host:port". Closed after the test file (test/support/cleanup.ts's afterTest is per test:
 * the caller closes it in its afterAll).
 */
import { createServer, request, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";

export interface ForwardProxy {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

export async function forwardProxy(upstreamUrl: string): Promise<ForwardProxy> {
  const upstream = new URL(upstreamUrl);
  const seen: string[] = [];
  const proxy: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? "/", "http://unused");
    const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: target.pathname + target.search, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  proxy.on("connect", (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const tunnel = connect(Number(upstream.port), upstream.hostname, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      tunnel.write(head);
      tunnel.pipe(socket);
      socket.pipe(tunnel);
    });
    tunnel.on("error", () => socket.destroy());
    socket.on("error", () => tunnel.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
