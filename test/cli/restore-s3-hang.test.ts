/**
 * `warden restore s3://BUCKET/KEY` (and `latest`) read the stored run through lib/aws/s3-objects.ts with no
 * AbortSignal and no timeout: an S3 endpoint (or proxy) that took the connection and never answered held
 * the command for ever, and Ctrl-C did nothing but say it was stopping (a hostile review's finding). The
 * CLI's signal now ends a listing or a read under way, and each request is bounded (60 s, 10 s to connect).
 */
import { createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { policyFile, startWarden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

describe("warden restore s3://… against an S3 endpoint that never answers", () => {
  it("a Ctrl-C stops it: the process ends with exit 1 within a few seconds", async () => {
    server = createServer((socket) => void sockets.push(socket)); // accepts, reads, never answers
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const aws = { AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3-test-secret", AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null", AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`, AWS_S3_FORCE_PATH_STYLE: "true" };
    const run = startWarden(["restore", "s3://runs-bucket/runs/enforce/schedule/20260101T000000.000Z-x.json"], {
      ...aws, GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-unused", WARDEN_POLICY: policyFile(standardPolicy()),
    });
    // Until the request is under way.
    const end = Date.now() + 10_000;
    while (sockets.length === 0 && Date.now() < end) await sleep(20);
    expect(sockets.length, "the CLI connected to S3").toBeGreaterThan(0);
    run.kill("SIGINT");
    const result = await Promise.race([run.done, sleep(5_000).then(() => "still running 5 s after Ctrl-C" as const)]);
    if (result === "still running 5 s after Ctrl-C") run.kill("SIGKILL");
    expect(result).not.toBe("still running 5 s after Ctrl-C");
    expect(typeof result === "object" && result.code).toBe(1);
  }, 30_000);
});
