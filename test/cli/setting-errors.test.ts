/**
 * Settings that only the first request can find wrong (an address where GitLab or n8n is not, a
 * refused credential) and a policy that is not there: exit 1 with one line naming the setting, what
 * was found and the fix, soon, and without the credential. The real CLI, against the simulators.
 */
import { mkdtempSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { startN8nSim, type N8nSim } from "../../sim/n8n/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

const N8N_KEY = "n8n-cli-setting-errors-key-31aa";
let gitlab: GitLabSim;
let n8n: N8nSim;
let env: Record<string, string>;

beforeAll(async () => {
  gitlab = await startGitLabSim({ dataset: generateOrganisation({ projects: 10, seed: 4 }).dataset });
  n8n = await startN8nSim({ generation: 2, workflows: [], apiKeys: { [N8N_KEY]: {} } });
  env = {
    GITLAB_URL: gitlab.url,
    GITLAB_TOKEN: gitlab.token,
    N8N_URL: n8n.url,
    N8N_API_KEY: N8N_KEY,
    WARDEN_POLICY: policyFile(`${standardPolicy()}\nn8n:\n  workflows: { keepActive: [] }\n`),
  };
});
afterAll(() => Promise.all([gitlab.close(), n8n.close()]));

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Runs the CLI and checks what every such failure has in common: exit 1, one line on stderr, nothing on stdout. */
async function fails(args: string[], overrides: Record<string, string>): Promise<{ line: string; ms: number }> {
  const started = performance.now();
  const run = await warden(args, { ...env, ...overrides });
  const ms = performance.now() - started;
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr.endsWith("\n") && run.stderr.split("\n")).toHaveLength(2);
  return { line: run.stderr.trimEnd(), ms };
}

describe("a setting the first request finds wrong", () => {
  it("GITLAB_URL where nothing listens: named within 2 s of what starting the CLI takes", async () => {
    const port = await closedPort();
    // What the machine takes to start the CLI at all (loaded, it is seconds): the refusal must add no retries' waits to it.
    const started = performance.now();
    expect((await warden(["--version"], env)).code).toBe(0);
    const startup = performance.now() - started;
    const { line, ms } = await fails(["enforce"], { GITLAB_URL: `http://127.0.0.1:${port}` });
    expect(line).toBe(`warden enforce: GITLAB_URL (http://127.0.0.1:${port}): connection refused — is the host and port right? (GET /api/v4/user failed: ECONNREFUSED)`);
    expect(ms - startup).toBeLessThan(2_000);
  });

  it("GITLAB_URL with https:// for a plain-http GitLab", async () => {
    const address = gitlab.url.replace("http:", "https:");
    const { line } = await fails(["enforce"], { GITLAB_URL: address });
    expect(line).toMatch(new RegExp(`^warden enforce: GITLAB_URL \\(${address.replaceAll(".", "\\.")}\\): the server speaks plain http: use ${gitlab.url.replaceAll(".", "\\.")} \\(`));
  });

  it("GITLAB_URL with a path GitLab is not under", async () => {
    const { line } = await fails(["enforce"], { GITLAB_URL: `${gitlab.url}/gitlab` });
    expect(line).toMatch(/^warden enforce: GITLAB_URL \(http:\/\/127\.0\.0\.1:\d+\/gitlab\): GitLab's API is not at this address — is it GitLab's\? If GitLab runs under a relative URL, include its path/);
  });

  it("GITLAB_TOKEN refused, never quoted", async () => {
    const { line } = await fails(["enforce"], { GITLAB_TOKEN: "glpat-wrongcli-9f3kq2zz" });
    expect(line).toMatch(/^warden enforce: GITLAB_TOKEN was refused \(401\): expired, revoked, or made on another GitLab\? \(GET \/api\/v4\/user answered 401: 401 Unauthorized\)$/);
    expect(line).not.toContain("9f3kq2");
  });

  it("N8N_URL with a path n8n's API is not under", async () => {
    const { line } = await fails(["workflows"], { N8N_URL: `${n8n.url}/n8n` });
    expect(line).toMatch(/^warden workflows: N8N_URL \(http:\/\/127\.0\.0\.1:\d+\/n8n\): n8n's public API is not at this address/);
  });
});

describe("no policy file", () => {
  // The example by a path that exists: the built CLI's, beside dist/ in a checkout as in an installed package.
  it("names the absolute path tried, how to name one, and the example to start from", async () => {
    const { line } = await fails(["enforce", "--policy", "no-such-policy.yaml"], {});
    expect(line).toBe(
      `warden enforce: ${resolve("no-such-policy.yaml")}: no such file: name the policy with --policy FILE or WARDEN_POLICY=FILE (${resolve(import.meta.dirname, "../../examples/warden.yaml")} is one to start from)`,
    );
  });

  it("an empty --policy (an unset \"$POLICY\") is named as empty, not the current directory as no such file", async () => {
    const { line } = await fails(["policy", "check", "--policy", ""], {});
    expect(line).toBe(`warden policy: --policy is empty: name the policy file, or leave it out for warden.yaml`);
  });

  it("a directory given as the policy is named as such", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-policy-dir-"));
    const { line } = await fails(["workflows"], { WARDEN_POLICY: dir });
    expect(line).toBe(`warden workflows: ${dir}: is a directory, not a policy file: name the file itself (such as ${dir}/warden.yaml)`);
  });
});
