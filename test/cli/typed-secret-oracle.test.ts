/**
 * Secrets a person types, registered with lib/redact, made every name Warden quotes a test of a guess of
 * them: a project creator names one project per guess ("Winter2025x", "Summer2024!", …) and reads which
 * comes back "[REDACTED]", in a report, a CI log, a merge request note or a notice. Unlike GitLab's tokens,
 * n8n's keys or Slack's secrets (generated, 20+ random characters), these are chosen by people. Warden
 * never writes either of them, so registering them protected almost nothing. Neither is registered now.
 *
 * - The egress proxy's password (the credential review's finding): lib/http/client.ts registered it,
 *   encoded and decoded. A URL's password is masked by shape (lib/redact), whatever its value. The GitLab
 *   here is on loopback, so no request goes through the proxy at all: setting HTTPS_PROXY was enough.
 * - WARDEN_PLAN_KEY (the second leaks review's finding): every command registered it (bin/cli/io.ts),
 *   though only `enforce --out` and `apply` read it, and only they refuse one under 32 characters; a plain
 *   dry run in a CI job that has the variable named a project called like the key `acme/[REDACTED]`.
 *   A plan never holds the key (only its HMAC); one whose policy text holds it is not written (plan-file.ts).
 *
 * docs/security.md closes this for the one other secret an administrator types (the system hook's token:
 * refused under 24 characters, because an echoed guess coming back masked would say it is the token).
 */
import { afterEach, expect, it } from "vitest";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { strayProjectsNamed } from "../support/guess-world.ts";
import { ACME_ONLY } from "../support/policies.ts";

const TOKEN = "glpat-ReviewLeaksProxy0123456789";

let sim: GitLabSim | undefined;
afterEach(() => sim?.close());

const SECRETS = [
  { secret: "the proxy's password", right: "Winter2025x", wrong: "Winter2025y", env: (right: string) => ({ HTTPS_PROXY: `http://svc-warden:${right}@127.0.0.1:9` }) },
  { secret: "WARDEN_PLAN_KEY, in a dry run that does not use it", right: "acme-plans-2025", wrong: "acme-plans-2024", env: (right: string) => ({ WARDEN_PLAN_KEY: right }) },
];

it.each(SECRETS)("the report names both projects alike: whether a name is $secret does not show", { timeout: 60_000 }, async ({ right, wrong, env }) => {
  sim = await startGitLabSim({ dataset: strayProjectsNamed(right, wrong), tokens: { [TOKEN]: { admin: true } } });
  const run = await warden(["enforce"], { GITLAB_URL: sim.url, GITLAB_TOKEN: TOKEN, WARDEN_POLICY: policyFile(ACME_ONLY), ...env(right) });
  expect(run.code).toBe(2);
  // Both strays are listed; a reader who chose the names must not be able to tell them apart but by the name.
  expect(run.stdout).toContain(`acme/${wrong}`);
  expect(run.stdout, "the right guess came back masked: the project's creator now knows the secret").toContain(`acme/${right}`);
  expect(run.stdout + run.stderr).not.toContain("[REDACTED]");
});
