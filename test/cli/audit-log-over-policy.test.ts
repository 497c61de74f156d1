/**
 * --audit-log naming the run's own policy file, in the commands that had no check of their own (the
 * cli7 review): workflows, pipeline and a restore from the run history (s3://, latest) made the change
 * and appended its JSON line to warden.yaml, which then no longer parsed, so every later run (the
 * Lambdas' too, were it the deployed policy) failed. main.ts now tells the files of every command that
 * takes --audit-log apart before it runs (bin/cli/distinct-files.ts; test/cli/output-over-input.test.ts
 * has enforce, apply and watch).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startN8nSim } from "../../sim/n8n/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim | undefined;
afterEach(() => {
  sim?.close();
  sim = undefined;
});

describe("--audit-log naming the policy file", () => {
  it("workflows --apply: refused before any change, the policy left as it was", async () => {
    const at = "2025-01-01T00:00:00.000Z";
    const wf = (id: string, active: boolean, tags: { id: string; name: string }[]) => ({ id, name: id, active, isArchived: false, tags, hasTrigger: true, createdAt: at, updatedAt: at });
    const n8n = await startN8nSim({ generation: 2, workflows: [wf("wfA", true, []), wf("wfB", false, [{ id: "t1", name: "production" }])], apiKeys: { "n8n-key-review": {} } });
    try {
      const dir = mkdtempSync(join(tmpdir(), "warden-cli-"));
      const policy = join(dir, "warden.yaml");
      const text = "version: 1\nn8n:\n  workflows:\n    keepActive: [\"tag:production\"]\n    unlisted: deactivate\n    listedInactive: publish\n  guard: { maxChanges: 10 }\n";
      writeFileSync(policy, text);
      const run = await warden(["workflows", "--apply", "--policy", policy, "--audit-log", policy], { N8N_URL: n8n.url, N8N_API_KEY: "n8n-key-review" });
      expect(readFileSync(policy, "utf8"), "audit lines were appended to the policy file").toBe(text);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/--audit-log/);
    } finally {
      await n8n.close();
    }
  });

  it("pipeline --apply: refused before the pipeline is started, the policy left as it was", async () => {
    sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 30, seed: 11 }).dataset, recordRequests: true });
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!.path_with_namespace;
    const dir = mkdtempSync(join(tmpdir(), "warden-cli-"));
    const policy = join(dir, "warden.yaml");
    const text = 'version: 1\npipelines:\n  allow:\n    - project: "acme/**"\n      refs: ["**"]\n';
    writeFileSync(policy, text);
    const run = await warden(["pipeline", "--apply", project, "main", "--policy", policy, "--audit-log", policy], { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token });
    expect(readFileSync(policy, "utf8"), "the start's audit line was appended to the policy file").toBe(text);
    expect(sim.requests.filter((r) => r.method !== "GET"), "a pipeline was started").toEqual([]);
    expect(run.code).toBe(1);
  });

  it("restore latest (the run history): the same refusal as restore FILE, before any request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-cli-"));
    const policy = join(dir, "warden.yaml");
    writeFileSync(policy, standardPolicy());
    // No S3 is needed to show it: the check comes before anything is read.
    const run = await warden(["restore", "latest", "--apply", "--policy", policy, "--audit-log", policy], {
      GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-unused-in-this-test", WARDEN_RUN_HISTORY_BUCKET: "runs",
      AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3-test-secret", AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
      AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9", AWS_S3_FORCE_PATH_STYLE: "true",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--audit-log and the policy file name one file|the policy file and --audit-log name one file/);
  });
});
