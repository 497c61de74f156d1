/**
 * The egress proxy's password, a credential people choose, was registered with lib/redact, so every
 * name Warden quotes became a test of a guess of it (the credential review's finding).
 *
 * lib/http/client.ts registered `proxySecrets(proxy)` (the password of HTTPS_PROXY / HTTP_PROXY, encoded
 * and decoded) with the process's redaction. Warden never writes that password anywhere (its errors name
 * the proxy's host only), so registering it protects almost nothing; but every output then masks a text
 * that *is* the password: a project path, a group name, a workflow name, a chat command's word, shown in
 * a report, a CI log, a merge request note or a notice. Unlike GitLab's tokens, n8n's keys or Slack's
 * secrets (generated, 20+ random characters), a proxy password is typed by a person, often a service
 * account's directory password: a project creator can name one project per guess ("Winter2025x",
 * "Summer2024!", …) and read which comes back "[REDACTED]". docs/security.md closes exactly this for the
 * one other secret an administrator types (the system hook's token: refused under 24 characters, because
 * "an echoed guess coming back masked would say it is the token"); the proxy password has no such guard.
 *
 * The GitLab here is on loopback, so no request goes through the proxy at all: setting HTTPS_PROXY was
 * enough to turn the report into the oracle. It is not registered now: a URL's password is masked by
 * shape (lib/redact), whatever its value.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ACCESS, startGitLabSim, type GitLabDataset, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";

const TOKEN = "glpat-ReviewLeaksProxy0123456789";
/** The CI runner's proxy account, with a password a person chose. */
const PASSWORD = "Winter2025x";
const GUESS_RIGHT = PASSWORD;
const GUESS_WRONG = "Winter2025y";

function world(): GitLabDataset {
  const group = (id: number, path: string) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "private" as const, shared_with_groups: [] });
  const project = (id: number, path: string): SimProject => ({
    id, name: path, path, path_with_namespace: `acme/${path}`, namespace_id: 1, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
    shared_with_groups: [{ group_id: 2, group_name: "outside", group_full_path: "outside", group_access_level: ACCESS.developer, expires_at: null }],
  });
  // Two projects a project creator named: two guesses of the proxy's password.
  return { groups: [group(1, "acme"), group(2, "outside")], users: [], projects: [project(10, GUESS_RIGHT), project(11, GUESS_WRONG)] };
}

const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
`;

let sim: GitLabSim;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: world(), tokens: { [TOKEN]: { admin: true } } });
});
afterAll(() => sim.close());

it("the report names both projects alike: whether a name is the proxy's password does not show", { timeout: 60_000 }, async () => {
  const env = { GITLAB_URL: sim.url, GITLAB_TOKEN: TOKEN, WARDEN_POLICY: policyFile(POLICY), HTTPS_PROXY: `http://svc-warden:${PASSWORD}@127.0.0.1:9` };
  const run = await warden(["enforce"], env);
  expect(run.code).toBe(2);
  // Both strays are listed; a reader who chose the names must not be able to tell them apart but by the name.
  expect(run.stdout).toContain(`acme/${GUESS_WRONG}`);
  expect(run.stdout, "the right guess came back masked: the project's creator now knows the proxy password").toContain(`acme/${GUESS_RIGHT}`);
  expect(run.stdout + run.stderr).not.toContain("[REDACTED]");
});
