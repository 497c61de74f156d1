/**
 * Issue 28, point 10: plain http:// to a GitLab or n8n that is not this machine would send the token
 * in clear. The CLI refuses it before any request, naming the cause and the fix, unless --allow-http
 * or WARDEN_ALLOW_HTTP=1 says so; this machine's addresses need neither. The "remote" host here is a
 * name (`gitlab.remote.test`) that only the CLI child resolves, to a loopback listener that counts what
 * arrives (test/support/remote-name.mjs): remote to Warden's check, and no traffic leaves loopback.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startN8nSim, type N8nSim } from "../../sim/n8n/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

const TOKEN = "glpat-plain-http-test-5b1e";
const N8N_KEY = "n8n-api-key-plain-http-8d3a";

let remote: Server;
let remoteUrl: string;
let received = 0;
let n8n: N8nSim;

beforeAll(async () => {
  // Answers as a GitLab that refuses the token: enough to see that a request came, and what it carried.
  remote = createServer((_req, res) => {
    received++;
    res.writeHead(401, { "content-type": "application/json" }).end('{"message":"401 Unauthorized"}');
  });
  await new Promise<void>((r) => remote.listen(0, "127.0.0.1", r));
  remoteUrl = `http://gitlab.remote.test:${(remote.address() as AddressInfo).port}`;
  n8n = await startN8nSim({ generation: 2, workflows: [], apiKeys: { [N8N_KEY]: {} } });
});
afterAll(async () => {
  await new Promise((r) => remote.close(r));
  await n8n.close();
});

const REMOTE_NAME = `--import=${new URL("../support/remote-name.mjs", import.meta.url).pathname}`;
const env = () => ({ GITLAB_URL: remoteUrl, GITLAB_TOKEN: TOKEN, WARDEN_POLICY: policyFile(standardPolicy()), NODE_OPTIONS: REMOTE_NAME });

describe("plain http:// to another host", { timeout: 60_000 }, () => {
  it("is refused before any request, naming the setting, the cause and the fix", async () => {
    const before = received;
    const run = await warden(["enforce"], env());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const host = new URL(remoteUrl).host;
    expect(run.stderr).toBe(
      `warden enforce: GITLAB_URL is plain http:// to ${host}, which would send GitLab's credential unencrypted over the network: ` +
        "use https://, or, only on a network you trust, pass --allow-http (or set WARDEN_ALLOW_HTTP=1)\n",
    );
    expect(received).toBe(before);
  });

  it("N8N_URL alike", async () => {
    const run = await warden(["workflows"], { NODE_OPTIONS: REMOTE_NAME, N8N_URL: remoteUrl, N8N_API_KEY: N8N_KEY, WARDEN_POLICY: policyFile("version: 1\nn8n:\n  workflows: { keepActive: [] }\n") });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden workflows: N8N_URL is plain http:\/\/ to \S+, which would send n8n's credential unencrypted/);
  });

  it.each([
    ["--allow-http", ["--allow-http"], {}],
    ["WARDEN_ALLOW_HTTP=1", [], { WARDEN_ALLOW_HTTP: "1" }],
  ] as [string, string[], Record<string, string>][])("is used with %s", async (_name, args, extra) => {
    const before = received;
    const run = await warden(["enforce", ...args], { ...env(), ...extra });
    // It went: the listener's refusal of the token is what stops the run.
    expect(received).toBeGreaterThan(before);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden enforce: GITLAB_TOKEN was refused \(401\)/);
  });

  it("WARDEN_ALLOW_HTTP set to anything but 1 or 0 is named, not guessed at", async () => {
    const before = received;
    const run = await warden(["enforce"], { ...env(), WARDEN_ALLOW_HTTP: "yes" });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('warden enforce: WARDEN_ALLOW_HTTP takes 1 (allow plain http:// to another host) or 0, got "yes"\n');
    expect(received).toBe(before);
  });

  it.each(["127.0.0.1", "localhost"])("to this machine (%s) needs no leave", async (host) => {
    const run = await warden(["workflows", "--json"], { N8N_URL: n8n.url.replace("127.0.0.1", host), N8N_API_KEY: N8N_KEY, WARDEN_POLICY: policyFile("version: 1\nn8n:\n  workflows: { keepActive: [] }\n") });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});
