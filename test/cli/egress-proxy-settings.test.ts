/**
 * A hostile review of the egress proxy support (bin/cli/io.ts proxyFrom, lib/http/transport.ts createAgent,
 * proxySecrets, proxyFor; lib/http/explain.ts). The environment's proxy settings are taken as curl, git and
 * npm take them, but (all mended since):
 * - a proxy named without a scheme (`proxy.corp:3128`, which curl and npm accept as http://) makes every
 *   command fail, even one whose GitLab NO_PROXY excepts (a run that worked before the change), with
 *   undici's words only;
 * - a password with a raw `%` (`50%off`) fails every command with "URI malformed";
 * - the error message's "go through the proxy" was worked out apart from undici's own choice, so it named a
 *   proxy the request never went through (NO_PROXY host:port, upper case), and none when undici did use one
 *   (HTTP_PROXY alone, for an https:// GitLab). It now names the proxies set, without saying the request
 *   went through them, NO_PROXY being undici's to read.
 */
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

let sim: GitLabSim;
/** A "proxy" that only records the connections it gets, and closes them. */
let recorder: TcpServer;
let recorderPort: number;
let connections = 0;
/** A port where nothing listens. */
let closedPort: number;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 40, seed: 5, groupShares: true }).dataset });
  recorder = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
  recorderPort = (recorder.address() as AddressInfo).port;
  // Take a free port, then free it: nothing listens there any more.
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(async () => {
  await sim.close();
  await new Promise((resolve) => recorder.close(resolve));
});

const base = () => ({ GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) });

describe("proxy settings as other tools accept them", () => {
  it("a proxy without a scheme (curl's and npm's http:// default) does not break a run whose GitLab NO_PROXY excepts", async () => {
    // Before the change this environment ran (the proxy was ignored); GitLab is excepted from the proxy all the same.
    const env = { ...base(), GITLAB_URL: sim.url, HTTPS_PROXY: "proxy.corp.example:3128", HTTP_PROXY: "proxy.corp.example:3128", NO_PROXY: "127.0.0.1,localhost" };
    const run = await warden(["enforce"], env);
    expect(run.stderr).not.toMatch(/Invalid URL protocol/);
    expect(run.code).toBe(2);
  });

  it("a proxy setting Warden cannot use is named (HTTPS_PROXY), not left to undici's words", async () => {
    const env = { ...base(), GITLAB_URL: "https://gitlab.internal.test", HTTPS_PROXY: "proxy.corp.example:3128" };
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/HTTPS_PROXY/);
  });

  it("a proxy password with a raw % (as curl takes it) is not a bare 'URI malformed'", async () => {
    const env = { ...base(), GITLAB_URL: "https://gitlab.internal.test", HTTPS_PROXY: `http://warden:50%off@127.0.0.1:${closedPort}` };
    const run = await warden(["enforce"], env);
    expect(run.stderr).not.toMatch(/^warden enforce: URI malformed$/m);
    expect(run.stderr).toMatch(/HTTPS_PROXY|proxy/);
    expect(run.stdout + run.stderr).not.toContain("50%off");
  });
});

describe("the error names the proxies set, and never says a request went through one", () => {
  it("HTTP_PROXY alone, an https:// GitLab: undici tunnels through it, so the failure is the proxy's and must say so", async () => {
    const env = { ...base(), GITLAB_URL: "https://gitlab.internal.test", HTTP_PROXY: `http://127.0.0.1:${closedPort}` };
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    // Connection refused: by the proxy's port, not gitlab.internal.test's.
    expect(run.stderr).toContain(`an egress proxy is set, 127.0.0.1:${closedPort} (HTTPS_PROXY, HTTP_PROXY), unless NO_PROXY excepts this host`);
  });

  it("NO_PROXY host:port excepts GitLab (undici goes direct): the error names the proxy only as set, NO_PROXY's to except", async () => {
    connections = 0;
    const env = { ...base(), GITLAB_URL: `http://127.0.0.1:${closedPort}`, HTTP_PROXY: `http://127.0.0.1:${recorderPort}`, NO_PROXY: `127.0.0.1:${closedPort}` };
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(connections).toBe(0); // direct, as undici reads NO_PROXY
    expect(run.stderr).toContain("unless NO_PROXY excepts this host");
  });

  it("NO_PROXY in upper case (LOCALHOST) excepts localhost (undici goes direct): the error names the proxy only as set", async () => {
    connections = 0;
    const env = { ...base(), GITLAB_URL: `http://localhost:${closedPort}`, HTTP_PROXY: `http://127.0.0.1:${recorderPort}`, NO_PROXY: "LOCALHOST" };
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(connections).toBe(0);
    expect(run.stderr).toContain("unless NO_PROXY excepts this host");
  });
});
