/**
 * An output path (--out, --audit-log, --state) that names one of the run's own inputs (the policy file,
 * the plan being applied, the other output). Nothing compared them, so the run wrote over what it read:
 * the policy file became a plan, or gained JSON audit lines, and every later run failed on it; the
 * watch's audit lines went to a file its state file then replaced (the CLI inputs review's finding).
 * Refused now before any request (bin/cli/distinct-files.ts), the file left as it was.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { startWarden, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";

let sim: GitLabSim;
let dir: string;
let policy: string;
let env: Record<string, string>;

afterEach(() => sim?.close());

describe("an output path that names the run's policy file, or the plan it applies", () => {
  beforeEach(async () => {
    sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 30, seed: 7 }).dataset, recordRequests: true });
    dir = mkdtempSync(join(tmpdir(), "warden-review-"));
    policy = join(dir, "warden.yaml");
    writeFileSync(policy, EVERYTHING_STRAY);
    env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token };
  });

  it("enforce --out naming the policy file is refused before any request, and the policy is left as it was", async () => {
    const run = await warden(["enforce", "--policy", policy, "--out", policy], env);
    // Before: the dry run examines the whole scope, then renames the plan over the policy (exit 2,
    // "plan written to …/warden.yaml"); the next run fails on a policy that is a plan's JSON.
    expect(readFileSync(policy, "utf8").slice(0, 40), "the policy file was replaced by the plan").toBe(EVERYTHING_STRAY.slice(0, 40));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--out/);
    expect(sim.counters.requests, `stderr: ${run.stderr.trim()}`).toBe(0);
  });

  it("the default policy (./warden.yaml) named by --out is refused too", async () => {
    const run = await warden(["enforce", "--out", "warden.yaml"], env, dir);
    expect(readFileSync(policy, "utf8").slice(0, 40), "./warden.yaml was replaced by the plan").toBe(EVERYTHING_STRAY.slice(0, 40));
    expect(run.code).toBe(1);
    expect(sim.counters.requests, `stderr: ${run.stderr.trim()}`).toBe(0);
  });

  it("enforce --apply --audit-log naming the policy file is refused before any removal, and the policy is left as it was", async () => {
    const run = await warden(["enforce", "--apply", "--policy", policy, "--audit-log", policy], env);
    // Before: the shares are removed and one JSON audit line per removal is appended to warden.yaml,
    // which no longer parses ("Implicit map keys need to be followed by map values"): the next
    // scheduled run, and `warden restore`, fail on it.
    const deletes = sim.requests.filter((r) => r.method !== "GET").length;
    expect(readFileSync(policy, "utf8").slice(EVERYTHING_STRAY.length, EVERYTHING_STRAY.length + 60), "audit lines were appended to the policy file").toBe("");
    expect(deletes, "removals made with the audit trail going into the policy file").toBe(0);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--audit-log/);
  });

  it("apply --apply --audit-log naming the plan being applied is refused before any removal", async () => {
    const plan = join(dir, "plan.json");
    const planned = await warden(["enforce", "--policy", policy, "--out", plan], env);
    expect(planned.code, planned.stderr).toBe(2);
    const before = readFileSync(plan, "utf8");
    sim.resetCounters();
    const run = await warden(["apply", plan, "--apply", "--policy", policy, "--audit-log", plan], env);
    // Before: the removals are made and their lines appended to the plan, which is then neither a plan
    // (`warden apply` calls it edited) nor audit lines `warden restore` reads ("names a removal but
    // is not a complete JSON object"): the undo trail of the run is unusable.
    expect(readFileSync(plan, "utf8").slice(before.length, before.length + 60), "audit lines were appended to the plan").toBe("");
    expect(sim.requests.filter((r) => r.method !== "GET"), "removals made").toEqual([]);
    expect(run.code).toBe(1);
  });
});

describe("warden watch --state naming the policy file", () => {
  it("is refused naming the mix-up, not with advice to delete the file", async () => {
    sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS, recordRequests: true });
    dir = mkdtempSync(join(tmpdir(), "warden-review-"));
    const policyPath = join(dir, "warden.yaml");
    writeFileSync(policyPath, watchPolicyText());
    const run = await warden(["watch", "--policy", policyPath, "--state", policyPath], { GITLAB_URL: sim.url, GITLAB_TOKEN: "root" });
    expect(run.code).toBe(1);
    expect(sim.counters.requests).toBe(0);
    // Before: "--state …/warden.yaml: not JSON, so not a watch's state file; delete it to start afresh at the newest event …".
    expect(run.stderr, run.stderr).not.toMatch(/delete it/);
  });
});

describe("warden watch with --state and --audit-log naming one file", () => {
  it("is refused before any request; before, the removals' audit lines end up in no file", async () => {
    sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS, recordRequests: true });
    dir = mkdtempSync(join(tmpdir(), "warden-review-"));
    const both = join(dir, "watch.json");
    writeFileSync(join(dir, "p.yaml"), watchPolicyText());
    const run = startWarden(["watch", "--apply", "--interval", "1s", "--state", both, "--audit-log", both], { GITLAB_URL: sim.url, GITLAB_TOKEN: "root", WARDEN_POLICY: join(dir, "p.yaml") });
    const started = await Promise.race([run.stderrMatches(/first start/).then(() => true), run.done.then(() => false)]);
    if (started) {
      // Not refused: a share made while it watches is removed, and its audit line is written to the
      // file opened for append, which the state file's atomic rename has since replaced (unlinked).
      await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
      for (const end = Date.now() + 15_000; allShares(sim).length > 0 && Date.now() < end; ) await sleep(50);
      await sleep(1_500);
      run.kill("SIGTERM");
      await run.done;
      expect(allShares(sim), "the watch removed the share").toEqual([]);
      expect(readFileSync(both, "utf8").includes('"remove-share"'), `the removal's audit line is in the --audit-log file, which holds: ${readFileSync(both, "utf8").replace(/\s+/g, " ")}`).toBe(true);
    }
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(sim.counters.requests, `stderr: ${result.stderr.trim()}`).toBe(0);
  }, 40_000);
});
