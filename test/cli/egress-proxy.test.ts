/**
 * A review of the package as a user runs it (bin/cli/io.ts, lib/http/transport.ts): the CLI where GitLab is reached only through an egress proxy (a CI runner, a corporate
 * laptop), named as npm, curl, git and the AWS CLI take it: HTTP_PROXY / HTTPS_PROXY (and NO_PROXY).
 * npm installed the package through that proxy; warden then ignored it, connected directly, and said
 * the host "could not be found — is its name right?", pointing at the wrong fix. A proxy asking for
 * credentials (407) was retried for 10 s and then called "the request failed (UND_ERR_ABORTED)".
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { forwardProxy, type ForwardProxy } from "../support/forward-proxy.ts";
import { startS3 } from "../support/lambda.ts";
import { groupSharesPolicy, standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let proxy: ForwardProxy;
let proxyUrl: string;
/** What reached the proxy: "GET http://…" (absolute-form) or "CONNECT host:port" (a tunnel). */
let seen: string[];

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 11, groupShares: true }).dataset });
  // A forward proxy that sends every request, whatever host it names, to the simulator.
  proxy = await forwardProxy(sim.url);
  ({ url: proxyUrl, seen } = proxy);
});
afterAll(async () => {
  await sim.close();
  await proxy.close();
});

describe("GitLab reachable only through HTTP_PROXY / HTTPS_PROXY", () => {
  it("warden enforce goes through the proxy the environment names (as npm, curl and git do)", async () => {
    // A name only the proxy can reach; --allow-http: the simulator speaks plain http.
    const env = { GITLAB_URL: "http://gitlab.internal.test", GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, http_proxy: proxyUrl, https_proxy: proxyUrl };
    const run = await warden(["enforce", "--allow-http"], env);
    expect(run.stderr).not.toMatch(/could not be found/);
    expect(seen.length).toBeGreaterThan(0);
    expect(run.code).toBe(2);
  });

  it("a proxy's password is never shown; a proxy that is not there is named as the cause", async () => {
    const secret = "pr0xy-s3cret-passw0rd";
    const gone = `http://warden:${secret}@127.0.0.1:9`;
    const env = { GITLAB_URL: "http://gitlab.internal.test", GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTP_PROXY: gone, HTTPS_PROXY: gone };
    const run = await warden(["enforce", "--allow-http", "--json"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/an egress proxy is set, 127\.0\.0\.1:9 \(HTTPS_PROXY, HTTP_PROXY\), unless NO_PROXY excepts this host: is it right, and up\?/);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it("a loopback address (plain http:// allowed: it stays on this machine) is never sent through the proxy, token and all", async () => {
    // A review's finding: http://localhost went, with the token in clear, to HTTP_PROXY wherever it is.
    for (const host of ["localhost", "127.0.0.1"]) {
      seen.length = 0;
      const env = { GITLAB_URL: sim.url.replace("127.0.0.1", host), GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl };
      const run = await warden(["enforce"], env);
      expect(run.code, run.stderr).toBe(2);
      expect(seen, host).toEqual([]);
    }
  });

  it("NO_PROXY's hosts are reached directly", async () => {
    // 0.0.0.0 reaches the simulator on this machine without being one of the loopback names never proxied.
    const direct = sim.url.replace("127.0.0.1", "0.0.0.0");
    const env = { GITLAB_URL: direct, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTP_PROXY: proxyUrl };
    seen.length = 0;
    expect((await warden(["enforce", "--allow-http"], env)).code).toBe(2);
    expect(seen.length).toBeGreaterThan(0);
    seen.length = 0;
    expect((await warden(["enforce", "--allow-http"], { ...env, NO_PROXY: "0.0.0.0" })).code).toBe(2);
    expect(seen).toEqual([]);
  });
});

describe("an egress proxy that asks for credentials (407)", () => {
  let guarded: Server;
  let guardedUrl: string;
  beforeAll(async () => {
    const refuse = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    guarded = createServer((_req, res) => res.writeHead(407, { "proxy-authenticate": 'Basic realm="corp"', "content-type": "text/html" }).end("<html>\u001b[31mlog in\u001b[0m</html>"));
    guarded.on("connect", (_req, socket) => socket.end(refuse));
    await new Promise<void>((resolve) => guarded.listen(0, "127.0.0.1", resolve));
    guardedUrl = `http://127.0.0.1:${(guarded.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    guarded.closeAllConnections();
    await new Promise((resolve) => guarded.close(resolve));
  });

  it.each([
    ["a tunnel (https)", "https://gitlab.internal.test", [], "HTTPS_PROXY"],
    ["a forwarded request (http)", "http://gitlab.internal.test", ["--allow-http"], "HTTP_PROXY"],
  ])("through %s: the error names the proxy and the fix, credentials in its address", async (_kind, gitlab, flags, variable) => {
    const env = { GITLAB_URL: gitlab, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTP_PROXY: guardedUrl, HTTPS_PROXY: guardedUrl };
    const run = await warden(["enforce", ...flags], env);
    expect(run.code).toBe(1);
    const host = new URL(guardedUrl).host;
    expect(run.stderr).toContain(`the egress proxy ${host} (${variable}) asks for credentials (407): give them in ${variable}, as USER:PASSWORD@ before its host (${host}), URL-encoded`);
    expect(run.stderr).not.toMatch(/\u001b/);
    // Not retried: a proxy asking for credentials asks again.
    expect(run.stderr).not.toMatch(/retrying/);
  });

  it("credentials it refuses are said to be refused, and never shown", async () => {
    const secret = "pr0xy-s3cret-passw0rd";
    const withCredentials = guardedUrl.replace("http://", `http://warden:${secret}@`);
    const env = { GITLAB_URL: "https://gitlab.internal.test", GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()), HTTPS_PROXY: withCredentials };
    const run = await warden(["enforce", "--json"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the egress proxy ${new URL(guardedUrl).host} (HTTPS_PROXY) refused the credentials in its address (407) — are they right (URL-encoded)?`);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });
});

describe("S3 reachable only through HTTPS_PROXY / HTTP_PROXY", () => {
  it("warden restore s3://… reads the stored run through the proxy, as it reaches GitLab (the AWS SDK alone connected directly)", async () => {
    const s3 = await startS3();
    const s3Proxy = await forwardProxy(s3.url);
    try {
      // A name only the proxy reaches, read virtual-hosted as the SDK reads a DNS name (the bucket in the host): the
      // stand-in, which takes the bucket from the path, keeps the object under the key's first part.
      const key = "runs/enforce/schedule/20260101T000000.000Z-req-1.json";
      s3.objects.set(key, JSON.stringify({ job: "enforce", dryRun: false, actions: [] }));
      const env = {
        GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()),
        AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3-test-secret", AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
        AWS_ENDPOINT_URL_S3: "http://s3.internal.test", HTTP_PROXY: s3Proxy.url, HTTPS_PROXY: s3Proxy.url,
      };
      const run = await warden(["restore", `s3://warden-runs/${key}`, "--json"], env);
      expect(run.stderr).not.toMatch(/failed/);
      expect(run.code, run.stderr).toBe(0);
      expect(s3Proxy.seen).toContain(`GET http://warden-runs.s3.internal.test/${key}?x-id=GetObject`);
      // An endpoint on this machine (a local stand-in, plain http://) is reached directly: the session token stays on it.
      s3Proxy.seen.length = 0;
      s3.objects.set(`warden-runs/${key}`, JSON.stringify({ job: "enforce", dryRun: false, actions: [] }));
      const local = await warden(["restore", `s3://warden-runs/${key}`, "--json"], { ...env, AWS_ENDPOINT_URL_S3: s3.url, AWS_SESSION_TOKEN: "local-session-token-0001" });
      expect(local.code, local.stderr).toBe(0);
      expect(s3Proxy.seen).toEqual([]);
    } finally {
      await s3Proxy.close();
      await s3.close();
    }
  }, 30_000);
});
