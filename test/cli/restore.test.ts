import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport, RestoreReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";
import { startS3 } from "../support/lambda.ts";
import { reportJson } from "../support/report.ts";

let sim: GitLabSim;
let env: Record<string, string>;
let original: string[];
/** The standard policy with a typo: its rule for partners/contractor-x lost. The enforce runs below use it; restore, the fixed one. */
let badPolicy: string;

const TODAY = new Date().toISOString().slice(0, 10);

/** Every share of both kinds with its level, expiry and custom role, sorted. */
const shares = () =>
  [...sim.dataset.projects.map((p) => ["project", p] as const), ...sim.dataset.groups.map((g) => ["group", g] as const)]
    .flatMap(([kind, o]) => o.shared_with_groups.map((s) => `${kind}:${o.id}:${s.group_id}:${s.group_access_level}:${s.expires_at}:${"member_role_id" in s ? s.member_role_id ?? null : null}`))
    .sort();

/** A file next to the policy: its path. */
const file = (name: string, text: string) => {
  const path = env["WARDEN_POLICY"]!.replace(/warden\.yaml$/, name);
  writeFileSync(path, text);
  return path;
};

/**
 * What a restore must bring back: everything the run removed, except shares whose expiry has passed
 * and those the (fixed) policy does not allow, which the restore skipped.
 */
function expectedAfterRestore(before: string[], report: EnforceReport, restore: RestoreReport): string[] {
  const notAllowed = new Set(restore.actions.filter((a) => a.policy && a.status === "skipped").map((a) => `${a.kind}:${a.kind === "project" ? a.projectId : a.sharedGroupId}:${a.groupId}:`));
  const expired = report.actions.filter((a) => a.expiresAt !== null && a.expiresAt < TODAY).map((a) => `${a.kind}:${a.kind === "project" ? a.projectId : a.sharedGroupId}:${a.groupId}:`);
  return before.filter((s) => ![...expired, ...notAllowed].some((prefix) => s.startsWith(prefix)));
}

beforeAll(async () => {
  const org = generateOrganisation({ projects: 300, seed: 11, groupShares: true });
  sim = await startGitLabSim({ dataset: org.dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
  badPolicy = file("bad.yaml", standardPolicy().replace(/      - group: "partners\/contractor-x"\n(        .*\n)*?(?=      - |    exempt)/, ""));
  original = shares();
});
afterAll(() => sim.close());

// In order: each step starts from the state the previous one left.
describe.sequential("warden restore, end to end", () => {
  let removal: EnforceReport;
  let reportFile: string;

  it("--help describes the inputs and the exit codes", async () => {
    const run = await warden(["restore", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: warden restore FILE[\s\S]*audit lines[\s\S]*--max-restores N[\s\S]*Exit codes: 0/);
  });

  it("refuses a file that is not an applying enforce run's output, before the environment or any request", async () => {
    const dry = await warden(["enforce", "--json"], env);
    expect(dry.code).toBe(2);
    const dryFile = file("dry.json", dry.stdout);
    sim.resetCounters();
    const run = await warden(["restore", dryFile], {});
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toBe(`warden restore: ${dryFile}: this is the report of a dry run, which removed nothing: restore reads the report of enforce --apply\n`);
    const missing = await warden(["restore"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^warden restore: one FILE is required/);
    const unreadable = await warden(["restore", "/nonexistent/report.json"], env);
    expect(unreadable.stderr).toBe("warden restore: cannot read /nonexistent/report.json: ENOENT\n");
    const badGuard = await warden(["restore", dryFile, "--max-restores", "some"], env);
    expect(badGuard.stderr).toBe('warden restore: --max-restores takes a whole number, got "some"\n');
    expect(sim.counters.requests).toBe(0);
  });

  it("after enforce --apply, a dry run from its report lists the shares to restore, sends only GET and exits 2", async () => {
    const applied = await warden(["enforce", "--apply", "--json", "--policy", badPolicy], env);
    expect(applied.code).toBe(0);
    removal = reportJson(applied.stdout) as EnforceReport;
    expect(new Set(removal.actions.map((a) => a.kind))).toEqual(new Set(["project", "group"]));
    reportFile = file("enforce-report.json", applied.stdout);
    sim.resetCounters();
    const run = await warden(["restore", reportFile], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Warden restore \(dry run\): \d+ removed shares/);
    expect(run.stdout).toMatch(/\nproject acme\S* \(#\d+\)\n  planned +\S+ +(guest|reporter|developer|maintainer|owner) +(no expiry|expires \d{4}-\d\d-\d\d)/);
    expect(run.stdout).toMatch(/From .*enforce-report\.json: an enforce report\. \d+ to restore: 0 restored; 0 already present, \d+ skipped, 0 failed; [1-9]\d* not allowed by the policy; guard ok \(max 1000\)/);
    // Each share says whether the policy allows it; one it does not is skipped, saying what to do.
    expect(run.stdout).toMatch(/  planned +partners\/contractor-x +\S+ +(no expiry|expires \S+) — allowed by allow\[1\] partners\/contractor-x\n/);
    expect(run.stdout).toMatch(/  skipped +group #\d+ +\S+ +(no expiry|expires \S+) — the policy does not allow it \(.*\): not restored; change the policy first, or ask for it anyway with --include-stray/);
    expect(Object.keys(sim.counters.byRoute).every((r) => r.startsWith("GET "))).toBe(true);
  });

  it("reads an applying run the Enforce function kept in S3, by s3://BUCKET/KEY or as latest, and plans as from the file", async () => {
    const s3 = await startS3();
    try {
      const key = "runs/enforce/schedule/20260101T000000.000Z-req-1.json";
      s3.objects.set(`warden-runs/${key}`, readFileSync(reportFile, "utf8"));
      // A later watch batch: "latest" is the sweep all the same.
      s3.objects.set("warden-runs/runs/enforce/watch/20260102T000000.000Z-req-2.json", JSON.stringify({ job: "enforce", dryRun: false, actions: [] }));
      // The AWS settings the SDK reads, and nothing from this machine's own configuration.
      const aws = { AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3-test-secret", AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null", AWS_ENDPOINT_URL_S3: s3.url };
      const fromFile = await warden(["restore", reportFile, "--json"], env);
      sim.resetCounters();
      for (const [args, extra] of [[[`s3://warden-runs/${key}`], {}], [["latest"], { WARDEN_RUN_HISTORY_BUCKET: "warden-runs" }]] as const) {
        const run = await warden(["restore", ...args, "--json"], { ...env, ...aws, ...extra });
        expect(run.code, run.stderr).toBe(2);
        const report = reportJson(run.stdout) as RestoreReport;
        expect(report.actions).toEqual((reportJson(fromFile.stdout) as RestoreReport).actions);
        expect(report.summary.from).toBe(`s3://warden-runs/${key}: an enforce report${args[0] === "latest" ? ", the latest sweep (trigger schedule)" : ""}`);
      }
      expect(Object.keys(sim.counters.byRoute).every((r) => r.startsWith("GET "))).toBe(true);

      const missing = await warden(["restore", "s3://warden-runs/runs/enforce/none.json"], { ...env, ...aws });
      expect(missing).toMatchObject({ code: 1, stdout: "" });
      expect(missing.stderr).toMatch(/^warden restore: reading s3:\/\/warden-runs\/runs\/enforce\/none\.json failed: NoSuchKey/);
      s3.objects.set("warden-runs/runs/enforce/dry.json", JSON.stringify({ job: "enforce", dryRun: true, actions: [] }));
      const dry = await warden(["restore", "s3://warden-runs/runs/enforce/dry.json"], { ...env, ...aws });
      expect(dry.stderr).toMatch(/^warden restore: s3:\/\/warden-runs\/runs\/enforce\/dry\.json: this is the report of a dry run/);
      const noBucket = await warden(["restore", "latest"], { ...env, ...aws });
      expect(noBucket.stderr).toBe("warden restore: WARDEN_RUN_HISTORY_BUCKET is not set\n");
    } finally {
      await s3.close();
    }
  });

  it("--max-restores below the restores exits 3 with nothing changed", async () => {
    const before = shares();
    const run = await warden(["restore", reportFile, "--apply", "--max-restores", "1", "--json"], env);
    expect(run.code).toBe(3);
    expect(reportJson(run.stdout).summary).toMatchObject({ guard: "tripped", maxRestores: 1 });
    expect(shares()).toEqual(before);
  });

  it("--apply from the report brings back every share the policy allows as it was, one audit line each, and exits 0", async () => {
    const run = await warden(["restore", reportFile, "--apply", "--json"], env);
    expect(run.code).toBe(0);
    const report = reportJson(run.stdout) as RestoreReport;
    expect(Object.keys(report)).toEqual(["schemaVersion", "job", "version", "gitlabUrl", "policy", "startedAt", "finishedAt", "dryRun", "summary", "actions", "stats", "warnings"]);
    expect(report.summary.restored).toBe(report.summary.restores);
    expect(shares()).toEqual(expectedAfterRestore(original, removal, report));
    const audit = run.stderr.trim().split("\n").map((l) => JSON.parse(l));
    expect(audit).toHaveLength(report.summary.restores);
    expect(audit[0]).toMatchObject({ level: "INFO", message: "restore-share", kind: expect.any(String), group: expect.any(String), accessLevel: expect.any(Number), outcome: "done" });

    const again = await warden(["restore", reportFile, "--apply", "--json"], env);
    expect(again.code).toBe(0);
    expect((reportJson(again.stdout) as RestoreReport).summary).toMatchObject({ restored: 0, alreadyPresent: report.summary.restores });
  });

  it("--apply from the audit lines on enforce's stderr does the same", async () => {
    const before = shares();
    const applied = await warden(["enforce", "--apply", "--json", "--policy", badPolicy], env);
    expect(applied.code).toBe(0);
    const auditFile = file("enforce-audit.log", applied.stderr);
    const run = await warden(["restore", auditFile, "--apply", "--json"], env);
    expect(run.code).toBe(0);
    expect(shares()).toEqual(expectedAfterRestore(before, reportJson(applied.stdout) as EnforceReport, reportJson(run.stdout) as RestoreReport));
  });

  it("a file listing a share the policy does not allow: skipped and nothing created; --include-stray creates it, with a warning", async () => {
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/"))!;
    const outside = sim.dataset.groups.find((g) => !g.full_path.startsWith("acme") && g.full_path !== "partners/contractor-x" && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
    const attack = file("attack.json", JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", kind: "project", projectId: project.id, project: project.path_with_namespace, groupId: outside.id, group: "acme/looks-allowed", accessLevel: 50, expiresAt: null, reason: "x", status: "done" }] }));
    sim.resetCounters();
    const refused = await warden(["restore", attack, "--apply", "--json"], env);
    const report = reportJson(refused.stdout) as RestoreReport;
    // Skipped, a group the input disguised is named by its id (a dry run tells no group's path for an id given).
    expect(report.actions).toMatchObject([{ status: "skipped", group: `group #${outside.id}`, policy: { verdict: "stray" } }]);
    expect(report.warnings.join("\n")).toMatch(/1 share the current policy does not allow: not restored \(skipped\)\. Change the policy first/);
    expect(Object.keys(sim.counters.byRoute).every((r) => r.startsWith("GET "))).toBe(true);

    const included = await warden(["restore", attack, "--apply", "--include-stray", "--json"], env);
    expect(included.code).toBe(0);
    expect((reportJson(included.stdout) as RestoreReport).summary).toMatchObject({ restored: 1, notAllowed: 1, includeStray: true });
    expect(project.shared_with_groups.find((s) => s.group_id === outside.id)).toMatchObject({ group_access_level: 50 });
  });
});
