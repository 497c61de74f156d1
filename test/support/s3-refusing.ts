/**
 * An S3 endpoint that refuses every request with S3's XML error (an outage: 503 ServiceUnavailable; a bucket
 * policy or an SCP that denies: 403 AccessDenied with its context), for the file's tests: a Lambda world
 * pointed at it (`AWS_ENDPOINT_URL_S3: s3.url()`) cannot store its run's report.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

export function refusingS3(status = 503, code = "ServiceUnavailable", message = "down"): { url: () => string } {
  let server: Server | undefined;
  let url = "";
  beforeAll(async () => {
    const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message.replace(/"/g, "&quot;")}</Message><RequestId>R1</RequestId><HostId>H1</HostId></Error>`;
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(status, { "content-type": "application/xml" }).end(body));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return { url: () => url };
}
