/**
 * `warden restore s3://…` sends the user's AWS credentials: the session token in a header of every request
 * (X-Amz-Security-Token), the secret key in none (it signs). An S3 endpoint or a proxy before it that quotes
 * the request in its error (as some S3-compatible stores and proxies do) had the SDK's message carry the
 * session token to stderr, a CI job's log: whoever reads that log could act as the user's role until the
 * token expires. The CLI names an S3 refusal by its code alone, and the AWS credentials in its environment
 * are registered with lib/redact like its own, should any other text quote them.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { policyFile, warden } from "../support/cli.ts";
import { fragmentsOf } from "../support/fragments.ts";
import { standardPolicy } from "../support/policies.ts";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

const SESSION_TOKEN = `IQoJb3JpZ2luX2VjEHoaCWV1LXdlc3QtMSJHMEUCIQD7${"sEssIonToKen0xKq9vLmN8pR2wZ".repeat(12)}`;
const SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8sK2mVb3";

/** An S3 that refuses every request, quoting what it was sent: its headers, and the secret key as a misbehaving proxy might have logged it. */
function quotingS3(req: IncomingMessage): string {
  const quoted = `token ${String(req.headers["x-amz-security-token"])} key ${SECRET_KEY} auth ${String(req.headers["authorization"])}`;
  return `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied for ${quoted}</Message><RequestId>R1</RequestId></Error>`;
}

describe("warden restore s3://… against an S3 endpoint that quotes the request in its error", () => {
  it("the session token and the secret key never reach stderr, whole or in part", async () => {
    const seen: string[] = [];
    server = createServer((req, res) => {
      seen.push(String(req.headers["x-amz-security-token"]));
      res.writeHead(403, { "content-type": "application/xml" }).end(quotingS3(req));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const run = await warden(["restore", "s3://runs-bucket/runs/enforce/schedule/20260101T000000.000Z-x.json"], {
      AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "ASIAEXAMPLE", AWS_SECRET_ACCESS_KEY: SECRET_KEY, AWS_SESSION_TOKEN: SESSION_TOKEN,
      AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null", AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`, AWS_S3_FORCE_PATH_STYLE: "true",
      GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-unused-in-this-test", WARDEN_POLICY: policyFile(standardPolicy()),
    });
    expect(seen[0], "the SDK sent the session token").toBe(SESSION_TOKEN);
    expect(run.code).toBe(1);
    expect(run.stderr, "the refusal is still named").toContain("AccessDenied");
    for (const piece of [...fragmentsOf(SESSION_TOKEN), ...fragmentsOf(SECRET_KEY)]) expect(run.stderr + run.stdout).not.toContain(piece);
  }, 30_000);
});
