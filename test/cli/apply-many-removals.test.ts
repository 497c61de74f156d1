/**
 * A plan of a million removals once crashed the CLI; a limit on bytes followed (apply refuses a plan over
 * 64 MB before reading it: bin/cli/io.ts readWholeFile). But what fills the CLI's 256 MB heap is the number
 * of removals, not the bytes: a compact plan (no whitespace, one-letter names) of 350,000 removals is 50 MB,
 * under the limit, and still ended the process with V8's "heap out of memory" (exit 134, a native stack
 * trace), after the guard had decided nothing would be removed (the second plans review's finding). No
 * enforce run writes more than MAX_PLANNED (100,000) removals, and a plan listing more is refused as it is read.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/jobs/canonical-json.ts";
import { planFile } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { ACME_ONLY } from "../support/policies.ts";

/** A guard of 25: a plan of more trips it. */
const POLICY = ACME_ONLY.replace("maxRemovals: 100", "maxRemovals: 25");

let sim: GitLabSim;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  const { dataset } = generateOrganisation({ projects: 10, seed: 3 });
  sim = await startGitLabSim({ dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(POLICY) };
  dir = mkdtempSync(join(tmpdir(), "warden-plan-size-"));
});
afterAll(() => sim.close());

/** A plan of `n` removals as an editor of the artifact writes it (compact JSON, checksum recomputed); its path. */
function paddedPlan(n: number): string {
  const { checksum: _old, ...content } = planFile({ removals: [], policy: parsePolicy(POLICY, "warden.yaml"), gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0.1.0", unmatchedRules: [] }) as unknown as Record<string, unknown>;
  content["removals"] = Array.from({ length: n }, (_, i) => ({ type: "remove-share", kind: "project", projectId: i + 1, project: "a", groupId: 1, group: "b", accessLevel: 30, expiresAt: null, reason: "" }));
  const checksum = `sha256:${createHash("sha256").update(canonicalJson(content), "utf8").digest("hex")}`;
  const path = join(dir, `plan-${n}.json`);
  writeFileSync(path, JSON.stringify({ ...content, checksum }));
  return path;
}

describe("warden apply of an edited plan under apply's 64 MB limit", () => {
  it("the same generator's small plan is a valid plan: refused by the guard, exit 3, nothing removed", async () => {
    const run = await warden(["apply", paddedPlan(30), "--apply"], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(3);
  });

  it("a 50 MB plan of 350,000 removals is refused as it is read, never a crash of the process", { timeout: 120_000 }, async () => {
    const path = paddedPlan(350_000);
    expect(statSync(path).size, "under the limit readWholeFile checks").toBeLessThan(64 * 1024 * 1024);
    const run = await warden(["apply", path, "--apply"], env);
    expect(run.stderr, "the process died of a full heap").not.toMatch(/FATAL ERROR|heap out of memory|Native stack trace/);
    expect(run.stderr).toContain("lists 350000 removals, more than any enforce run plans (100000): not a plan Warden wrote; plan again");
    expect(run.code).toBe(1);
  });
});
