/**
 * In Lambda the credential comes from the secret: a refused one is named by the secret's field, the
 * address by the function's variable, and a policy missing from the bundle by its path and how a
 * deployment names one. Through the real handlers, against the simulators and a closed port.
 */
import { mkdtemp } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { startN8nSim, type N8nSim } from "../../sim/n8n/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { coldEnforce, lambdaContext, stubAwsEnv } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

// The simulators know other credentials than the secret's: every run is refused.
let gitlab: GitLabSim;
let n8n: N8nSim;
const world = lambdaWorld({ policy: `${standardPolicy()}\nn8n:\n  workflows: { keepActive: [] }\n`, env: () => ({ GITLAB_URL: gitlab.url, N8N_URL: n8n.url }) });

beforeAll(async () => {
  gitlab = await startGitLabSim({ dataset: generateOrganisation({ projects: 10, seed: 2 }).dataset, tokens: { "glpat-another-token-71c0": { admin: true } } });
  n8n = await startN8nSim({ generation: 2, workflows: [], apiKeys: { "n8n-another-key-5e2b": {} } });
});
afterAll(() => Promise.all([gitlab.close(), n8n.close()]));

async function coldWorkflows(): Promise<(event: unknown) => Promise<unknown>> {
  vi.resetModules();
  const { handler } = await import("../../functions/workflows.ts");
  return (event) => handler(event as never, lambdaContext());
}

describe("a credential the service refuses is named by the secret's field", () => {
  it("GitLab: the secret's gitlabToken", async () => {
    await expect((await coldEnforce())({})).rejects.toThrow(/^the secret's gitlabToken was refused \(401\): expired, revoked, or made on another GitLab\? \(GET \/api\/v4\/user answered 401/);
  });

  it("n8n: the secret's n8nApiKey", async () => {
    await expect((await coldWorkflows())({})).rejects.toThrow(/^the secret's n8nApiKey was refused \(401\): wrong, expired or revoked, or made on another n8n\?/);
  });
});

it("an address where nothing listens is named by the function's GITLAB_URL, within 2 s", async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  vi.stubEnv("GITLAB_URL", `http://127.0.0.1:${port}`);
  const enforce = await coldEnforce();
  const started = performance.now();
  await expect(enforce({})).rejects.toThrow(new RegExp(`^GITLAB_URL \\(http://127\\.0\\.0\\.1:${port}\\): connection refused — is the host and port right\\?`));
  expect(performance.now() - started).toBeLessThan(2_000);
});

describe("a policy the bundle does not have", () => {
  it("names the path the function looked at and how a deployment ships one", async () => {
    const root = await mkdtemp(join(tmpdir(), "warden-bundle-"));
    stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, LAMBDA_TASK_ROOT: root, WARDEN_POLICY: undefined, GITLAB_URL: gitlab.url });
    await expect((await coldEnforce())({})).rejects.toThrow(
      `${root}/warden.yaml: no such file: sst deploy bundles the file WARDEN_POLICY_FILE names (default warden.yaml next to sst.config.ts) as warden.yaml, and the function's WARDEN_POLICY names another in the bundle: deploy again with one (start from examples/warden.yaml in Warden's repository)`,
    );
  });

  it("a directory is named as one", async () => {
    const root = await mkdtemp(join(tmpdir(), "warden-bundle-"));
    stubAwsEnv({ AWS_ENDPOINT_URL_SECRETS_MANAGER: world.secretsManager.url, LAMBDA_TASK_ROOT: root, WARDEN_POLICY: ".", GITLAB_URL: gitlab.url });
    await expect((await coldEnforce())({})).rejects.toThrow(`${root}: is a directory, not a policy file: name the file itself (such as ${root}/warden.yaml)`);
  });
});

// Issue 28, point 10: the functions refuse a plain http:// address of another host as the CLI does.
describe("a plain http:// GITLAB_URL of another host", () => {
  const REMOTE = "http://gitlab.warden-test.invalid";

  it("is refused before any request, naming the fix on a deployment", async () => {
    vi.stubEnv("GITLAB_URL", REMOTE);
    const started = performance.now();
    await expect((await coldEnforce())({})).rejects.toThrow(
      /^GITLAB_URL is plain http:\/\/ to gitlab\.warden-test\.invalid, which would send GitLab's credential unencrypted over the network: use https:\/\/, or, only on a network you trust, deploy with WARDEN_ALLOW_HTTP=1$/,
    );
    // No name was looked up: an unknown host would take its own error.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("is used when the deployment says WARDEN_ALLOW_HTTP=1 (here, it then finds no such host)", async () => {
    vi.stubEnv("GITLAB_URL", REMOTE);
    vi.stubEnv("WARDEN_ALLOW_HTTP", "1");
    await expect((await coldEnforce())({})).rejects.toThrow(/^GITLAB_URL \(http:\/\/gitlab\.warden-test\.invalid\): the host gitlab\.warden-test\.invalid could not be found/);
  });
});
