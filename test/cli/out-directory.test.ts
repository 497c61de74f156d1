/**
 * `warden enforce --out DIR` where DIR is a directory: planOutFrom (bin/cli/plan-out.ts) checked only that
 * its parent exists, so the whole examination ran before the write failed with EISDIR (a hostile
 * review's finding). Bad input is refused before any request now, naming the path and the fix.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

describe("enforce --out naming a directory", () => {
  it("is refused before any request, naming the path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-out-"));
    const run = await warden(["enforce", "--out", dir], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(dir);
    expect(run.stderr).toMatch(/is a directory: name the plan file/);
    expect(sim.counters.requests, `requests sent before the refusal; stderr: ${run.stderr.trim()}`).toBe(0);
  }, 30_000);
});
