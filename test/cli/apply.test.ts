/**
 * `warden enforce --out PLAN` then `warden apply PLAN`, end to end against the GitLab simulator: the
 * plan a dry run saved is the plan applied, refused before any request when it cannot be trusted.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planFile, type ApplyReport, type PlanFile } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, startWarden, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY, groupSharesPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
let dir: string;
let strays: number;

beforeAll(async () => {
  const org = generateOrganisation({ projects: 200, seed: 11, groupShares: true });
  strays = org.intents.filter((i) => i.intent === "stray").length;
  sim = await startGitLabSim({ dataset: org.dataset, recordRequests: true });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
  dir = mkdtempSync(join(tmpdir(), "warden-apply-"));
});
afterAll(() => sim.close());

const shares = () => [...sim.dataset.projects, ...sim.dataset.groups].reduce((n, p) => n + p.shared_with_groups.length, 0);
const HOUR = 3_600_000;

/** A plan as `enforce --out` writes it, made `hoursAgo` ago, for the plan's age checks. */
function oldPlan(hoursAgo: number): string {
  const path = join(dir, `old-${hoursAgo}.json`);
  const plan = planFile({ removals: [], policy: parsePolicy(groupSharesPolicy(), "warden.yaml"), gitlabUrl: sim.url, createdAt: new Date(Date.now() - hoursAgo * HOUR), wardenVersion: "0.0.0", unmatchedRules: [] });
  writeFileSync(path, JSON.stringify(plan));
  return path;
}

describe("bad input: exit 1 naming the cause and the fix, before any request", () => {
  const cases: [string, string[], RegExp][] = [
    ["--out with --apply", ["enforce", "--apply", "--out", "plan.json"], /--out saves a dry run's plan for review, and --apply removes now: drop --apply, review plan\.json, then run: warden apply plan\.json --apply/],
    ["--out into a missing directory", ["enforce", "--out", "/nonexistent-dir/plan.json"], /--out \/nonexistent-dir\/plan\.json: its directory \/nonexistent-dir cannot take the file \(ENOENT\)/],
    ["apply without a plan", ["apply"], /one PLAN file is required \(written by warden enforce --out PLAN\)/],
    ["a --max-plan-age without its unit", ["apply", "plan.json", "--max-plan-age", "24"], /--max-plan-age takes a positive whole number of minutes, hours or days \(90m, 24h, 2d\), got "24"/],
    ["a plan file that is not there", ["apply", "/nonexistent-dir/plan.json"], /cannot read \/nonexistent-dir\/plan\.json: ENOENT/],
  ];
  it.each(cases)("%s", async (_, args, message) => {
    sim.resetCounters();
    const run = await warden(args, env, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(sim.counters.requests).toBe(0);
  });
});

// In order: each step starts from the state the previous one left.
describe.sequential("enforce --out, then apply", () => {
  const path = () => join(dir, "plan.json");
  let plan: PlanFile;

  it("enforce --out writes the plan of the dry run, nothing else in its directory, and says how to apply it", async () => {
    const run = await warden(["enforce", "--out", path()], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`plan written to ${path()}: ${strays} removals; review it, then apply it with: warden apply ${path()} --apply`);
    plan = JSON.parse(readFileSync(path(), "utf8")) as PlanFile;
    expect(plan).toMatchObject({ format: "warden-plan", formatVersion: 1, gitlabUrl: sim.url, policy: { source: "file", text: groupSharesPolicy() } });
    expect(plan.removals).toHaveLength(strays);
    expect(readdirSync(dir).filter((f) => f.includes("plan.json"))).toEqual(["plan.json"]);
  });

  it("an edited plan is refused before any request", async () => {
    const edited = join(dir, "edited.json");
    writeFileSync(edited, JSON.stringify({ ...plan, removals: plan.removals.slice(1) }));
    sim.resetCounters();
    const run = await warden(["apply", edited, "--apply"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`warden apply: ${edited} was edited after it was written (its checksum does not match its content)`);
    expect(sim.counters.requests).toBe(0);
  });

  it("a plan heavier than apply reads whole is refused before it is parsed, naming the fix (an edited one of a million removals crashed the process)", async () => {
    const heavy = join(dir, "heavy.json");
    // Sparse: 100 MB to stat, nothing on the disk.
    writeFileSync(heavy, "");
    truncateSync(heavy, 100 * 1024 * 1024);
    sim.resetCounters();
    const run = await warden(["apply", heavy, "--apply"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`warden apply: ${heavy} is 100 MB, more than apply reads (64 MB): plan again with a narrower --target, or a policy that removes less`);
    expect(sim.counters.requests).toBe(0);
  });

  it("a plan made for another GitLab origin is refused before any request", async () => {
    sim.resetCounters();
    const other = sim.url.replace("127.0.0.1", "localhost");
    const run = await warden(["apply", path(), "--apply"], { ...env, GITLAB_URL: other });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`was made for ${sim.url}, not for GITLAB_URL's ${other}`);
    expect(sim.counters.requests).toBe(0);
  });

  it("a plan older than --max-plan-age (default 24h) is refused before any request; a longer age accepts it", async () => {
    sim.resetCounters();
    const stale = await warden(["apply", oldPlan(25)], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/25\.0 hours ago, older than --max-plan-age \(24\.0 hours\): plan again and review that plan, or raise --max-plan-age/);
    const ninety = await warden(["apply", oldPlan(2), "--max-plan-age", "90m"], env);
    expect(ninety.stderr).toMatch(/older than --max-plan-age \(90 minutes\)/);
    expect(sim.counters.requests).toBe(0);
    expect((await warden(["apply", oldPlan(25), "--max-plan-age", "2d"], env)).code).toBe(0);
  });

  it("apply without --apply sends only GETs and reports what it would remove (exit 2)", async () => {
    const before = shares();
    sim.resetCounters();
    const run = await warden(["apply", path(), "--json"], env);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as ApplyReport;
    expect(report).toMatchObject({ job: "apply", dryRun: true, summary: { strays, removed: 0, skipped: 0, guard: "ok", complete: true } });
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(new Set(sim.requests.map((r) => r.method))).toEqual(new Set(["GET"]));
    expect(shares()).toBe(before);
  });

  it("apply --apply removes exactly the plan, with enforce's audit lines, which restore reads", async () => {
    const before = shares();
    const log = join(dir, "audit.jsonl");
    const run = await warden(["apply", path(), "--apply", "--json", "--audit-log", log], env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ApplyReport;
    expect(report.summary).toMatchObject({ strays, removed: strays, failed: 0 });
    expect(shares()).toBe(before - strays);
    const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { message: string; outcome: string; confirmation?: true });
    // One line per removal as GitLab answered; a group share's confirmation besides.
    expect(lines.filter((l) => !l.confirmation)).toHaveLength(strays);
    expect(lines.every((l) => /^remove-(group-)?share$/.test(l.message) && l.outcome === "done")).toBe(true);
    // The policy removed them, so restore would skip them: --include-stray plans them all back.
    const restore = await warden(["restore", log, "--json", "--include-stray"], env);
    expect(restore.code).toBe(2);
    expect(JSON.parse(restore.stdout).summary.restores).toBe(strays);
  });

  it("the same plan applied again removes nothing: every share is already gone (exit 0), as the text report says", async () => {
    const run = await warden(["apply", path(), "--apply"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Warden apply/);
    expect(run.stdout).toContain(`${strays} in the plan: 0 removed, ${strays} already gone, 0 skipped (changed since the plan), 0 failed; guard ok (max 1000)`);
  });
});

describe("interrupted", () => {
  let slow: GitLabSim;
  let slowEnv: Record<string, string>;
  beforeAll(async () => {
    slow = await startGitLabSim({ dataset: generateOrganisation({ projects: 400, seed: 11 }).dataset, latencyMs: 80 });
    slowEnv = { GITLAB_URL: slow.url, GITLAB_TOKEN: slow.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
  });
  afterAll(() => slow.close());
  const until = async (condition: () => boolean) => {
    while (!condition()) await sleep(10);
  };

  it("an examination stopped by a signal writes no plan (a partial plan would read as the whole one)", async () => {
    const out = join(dir, "stopped.json");
    slow.resetCounters();
    const run = startWarden(["enforce", "--out", out, "--json"], slowEnv);
    // The token check, the administrator's read and the scope look-up, then the examination's first request.
    await until(() => slow.counters.requests >= 4);
    run.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).summary.complete).toBe(false);
    expect(result.stderr).toContain(`no plan written to ${out}: the examination did not finish`);
    expect(existsSync(out)).toBe(false);
  });

  it("SIGTERM during apply --apply: the report printed, an audit line per removal attempted, exit 1", async () => {
    const out = join(dir, "everything.json");
    expect((await warden(["enforce", "--out", out], slowEnv)).code).toBe(2);
    slow.resetCounters();
    const run = startWarden(["apply", out, "--apply", "--json", "--concurrency", "2"], slowEnv);
    await until(() => (slow.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0) >= 3);
    run.kill("SIGTERM");
    const result = await run.done;
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as ApplyReport;
    expect(report.summary.complete).toBe(false);
    expect(report.warnings.join("\n")).toMatch(/stopped \(interrupted by SIGTERM\) with \d+ of \d+ removals still planned: apply the plan again to finish/);
    const audit = result.stderr.split("\n").filter((line) => line.startsWith("{") && !line.includes('"confirmation":true'));
    expect(audit.length).toBeGreaterThanOrEqual(3);
    expect(report.actions.filter((a) => a.status !== "planned")).toHaveLength(audit.length);
  });
});

describe("a plan saved by a targeted run", () => {
  it("records no rule as matching nothing (a rule may match elsewhere in the scope), so apply's guard passes it", async () => {
    // A review's finding: the plan recorded every rule that matched nothing inside the target, and
    // `warden apply` of it tripped the guard under the default unmatchedRules: refuse, every time.
    const plan = join(dir, "targeted.json");
    // Exit 2, or 0 once the tests above applied its strays: the plan is written either way.
    const planned = await warden(["enforce", "--target", "acme/platform", "--out", plan, "--json"], env);
    expect([0, 2], planned.stderr).toContain(planned.code);
    const full = await warden(["enforce", "--json"], env);
    expect((JSON.parse(full.stdout) as { warnings: string[] }).warnings.filter((w) => /matched nothing/.test(w))).toEqual([]);
    expect((JSON.parse(readFileSync(plan, "utf8")) as PlanFile).unmatchedRules).toEqual([]);
    const applied = await warden(["apply", plan, "--apply", "--json"], env);
    expect((JSON.parse(applied.stdout) as ApplyReport).summary.guard).toBe("ok");
    expect(applied.code).toBe(0);
  });
});
