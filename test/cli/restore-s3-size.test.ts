/**
 * `warden restore s3://BUCKET/KEY` (and `latest`) read the stored object whole, with no limit, where a
 * FILE is refused past 64 MB: past the CLI's 256 MB heap the process died of V8's "heap out of memory"
 * (exit 134, a native stack trace), the failure 99e4393 removed for pipes (the restore review, fourth
 * pass). Whoever names the object (any s3:// the operator's credentials reach: a CloudWatch export, a
 * wrong key) or writes it decides its size. lib/aws/s3-objects.ts refuses it now, by its stated length
 * and by what arrives. The S3 stand-in below streams 300 MB of lines (the test process holds one chunk).
 */
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

const LINE = '{"message":"remove-share","note":"filler"}\n';
const TOTAL_MB = 300;

describe("warden restore s3://… of an object larger than the CLI reads whole", () => {
  it.each([["with its length stated", true], ["sent chunked, its length not said", false]])("%s, is refused with a message naming the limit, as a FILE of that size is, not a heap crash", async (_how, stated) => {
    const chunk = Buffer.from(LINE.repeat(Math.floor((1024 * 1024) / LINE.length)));
    const chunks = Math.ceil((TOTAL_MB * 1024 * 1024) / chunk.length);
    server = createServer((req, res) => {
      if (req.method !== "GET") return void res.writeHead(400).end();
      res.writeHead(200, { "content-type": "application/json", ...(stated && { "content-length": String(chunk.length * chunks) }) });
      let sent = 0;
      const pump = () => {
        while (sent < chunks) {
          sent++;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("error", () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const aws = { AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3-test-secret", AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null", AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`, AWS_S3_FORCE_PATH_STYLE: "true" };
    const run = await warden(["restore", "s3://runs-bucket/runs/enforce/schedule/20260101T000000.000Z-x.json"], {
      ...aws, GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-unused", WARDEN_POLICY: policyFile(standardPolicy()),
    });
    expect(run.stderr.slice(0, 2000), "the process died of a full heap").not.toMatch(/FATAL ERROR|heap out of memory|Native stack trace|Invalid string length/);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/64 MB/);
  }, 120_000);
});
