/**
 * --audit-log FILE: the undo trail on disk. Each change's JSON line is appended as it happens (a run
 * killed right after a change leaves its line), several runs append to one file, and `warden restore
 * FILE` brings back what they removed, with no policy file needed. On a terminal stderr shows a
 * running count instead of the lines, and no progress line is glued to another.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { progressLine, redactedIO } from "../../bin/cli/io.ts";
import { main } from "../../bin/cli/main.ts";
import type { EnforceReport, RestoreReport } from "../../lib/jobs/index.ts";
import { startN8nSim } from "../../sim/n8n/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, startWarden, warden, type CliRun, type LiveRun } from "../support/cli.ts";
import { EVERYTHING_STRAY, standardPolicy } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";

// The standard policy that also allows partners/**: what it removes, the standard policy removes too, and more.
const LENIENT = standardPolicy().replace('      - group: "acme/**"\n', '      - group: "acme/**"\n      - group: "partners/**"\n') + "    unmatchedRules: warn\n";

const TODAY = new Date().toISOString().slice(0, 10);
const LATENCY_MS = 40;

let sim: GitLabSim;
let gitlab: Record<string, string>;
let dir: string;

beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 300, seed: 11, groupShares: true }).dataset, latencyMs: LATENCY_MS });
  gitlab = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token };
  dir = mkdtempSync(join(tmpdir(), "warden-audit-"));
});
afterEach(() => sim.close());

/** Every share of both kinds with its level, expiry and custom role, sorted. */
const shares = () =>
  [...sim.dataset.projects.map((p) => ["project", p] as const), ...sim.dataset.groups.map((g) => ["group", g] as const)]
    .flatMap(([kind, o]) => o.shared_with_groups.map((s) => `${kind}:${o.id}:${s.group_id}:${s.group_access_level}:${s.expires_at}:${"member_role_id" in s ? s.member_role_id ?? null : null}`))
    .sort();

/** The file's lines, each parsed: a line that is not complete JSON fails the test. */
const auditLines = (path: string) =>
  readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { message: string; outcome: string; error?: string; confirmation?: true });

/** The JSON lines a run wrote to stderr. */
const stderrLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("{"));

/** What restore brings back: every share removed, except those whose expiry has passed. */
function expectedAfterRestore(before: string[], reports: EnforceReport[]): string[] {
  const expired = reports.flatMap((r) => r.actions).filter((a) => a.expiresAt !== null && a.expiresAt < TODAY).map((a) => `${a.kind}:${a.kind === "project" ? a.projectId : a.sharedGroupId}:${a.groupId}:`);
  return before.filter((s) => !expired.some((prefix) => s.startsWith(prefix)));
}

describe("--audit-log FILE", () => {
  it("two applying runs append to one file (the same lines as on stderr), and restore FILE --include-stray brings every share back", async () => {
    const original = shares();
    const log = join(dir, "audit.log");
    const first = await warden(["enforce", "--apply", "--json", "--audit-log", log], { ...gitlab, WARDEN_POLICY: policyFile(LENIENT) });
    expect(first.code, first.stderr).toBe(0);
    const afterFirst = readFileSync(log, "utf8");
    const firstReport = reportJson(first.stdout) as EnforceReport;
    expect(firstReport.actions.length).toBeGreaterThan(0);
    expect(afterFirst).toBe(`${stderrLines(first.stderr).join("\n")}\n`);

    const second = await warden(["enforce", "--apply", "--json", "--audit-log", log], { ...gitlab, WARDEN_POLICY: policyFile(standardPolicy()) });
    expect(second.code, second.stderr).toBe(0);
    const secondReport = reportJson(second.stdout) as EnforceReport;
    expect(secondReport.actions.length).toBeGreaterThan(0);
    // Appended: the first run's lines are still there, each run's lines complete.
    expect(readFileSync(log, "utf8")).toBe(`${afterFirst}${stderrLines(second.stderr).join("\n")}\n`);
    const lines = auditLines(log);
    // One line per removal as GitLab answered; a group share's confirmation (confirmation: true) besides.
    expect(lines.filter((l) => !l.confirmation)).toHaveLength(firstReport.actions.length + secondReport.actions.length);
    expect(lines.every((l) => l.outcome === "done")).toBe(true);

    const restoreLog = join(dir, "restore.log");
    // The policy that removed them does not allow them: --include-stray brings them back all the same.
    const restored = await warden(["restore", log, "--apply", "--include-stray", "--json", "--max-restores", "100000", "--audit-log", restoreLog], { ...gitlab, WARDEN_POLICY: policyFile(standardPolicy()) }, dir);
    expect(restored.code, restored.stderr).toBe(0);
    const report = reportJson(restored.stdout) as RestoreReport;
    expect(report.summary.restored).toBe(report.summary.restores);
    expect(shares()).toEqual(expectedAfterRestore(original, [firstReport, secondReport]));
    expect(auditLines(restoreLog)).toHaveLength(report.summary.restored);
    expect(readFileSync(restoreLog, "utf8")).toBe(`${stderrLines(restored.stderr).join("\n")}\n`);
  });

  it("restore reads the policy as enforce does: ./warden.yaml sets the guard, none anywhere is an error, and so is a named one that is missing", async () => {
    const log = join(dir, "audit.log");
    const applied = await warden(["enforce", "--apply", "--audit-log", log], { ...gitlab, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) });
    expect(applied.code, applied.stderr).toBe(0);
    expect(auditLines(log).length).toBeGreaterThan(100);
    // No policy anywhere (no --policy, no $WARDEN_POLICY, no ./warden.yaml): nothing to judge the shares by.
    sim.resetCounters();
    const none = await warden(["restore", log, "--apply", "--json"], gitlab, dir);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("warden.yaml");
    expect(Object.keys(sim.counters.byRoute).every((r) => r.startsWith("GET "))).toBe(true);
    const policyDir = join(policyFile(standardPolicy(7)), "..");
    const run = await warden(["restore", log, "--json"], gitlab, policyDir);
    expect((reportJson(run.stdout) as RestoreReport).summary.maxRestores).toBe(7);
    const missing = await warden(["restore", log, "--policy", join(dir, "none.yaml")], gitlab, dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file");
  });

  it("an unwritable FILE is refused before any request", async () => {
    sim.resetCounters();
    const run = await warden(["enforce", "--apply", "--audit-log", join(dir, "no", "such", "dir.log")], { ...gitlab, WARDEN_POLICY: policyFile(standardPolicy()) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`warden enforce: --audit-log ${join(dir, "no", "such", "dir.log")}: cannot open it for append (ENOENT)\n`);
    expect(sim.counters.requests).toBe(0);
  });

  it("'-' (standard output, as many tools take it) is refused before any request, and no file named '-' is made", async () => {
    sim.resetCounters();
    const run = await warden(["enforce", "--apply", "--audit-log", "-"], { ...gitlab, WARDEN_POLICY: policyFile(standardPolicy()) }, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("warden enforce: --audit-log takes a file to append to; - is not one (standard output carries the report): name a file, such as --audit-log audit.jsonl\n");
    expect(existsSync(join(dir, "-"))).toBe(false);
    expect(sim.counters.requests).toBe(0);
  });
});

describe("workflows --audit-log FILE", () => {
  it("appends one line per activation change, as on stderr", async () => {
    const at = "2025-01-01T00:00:00.000Z";
    const wf = (id: string, active: boolean, tags: { id: string; name: string }[]) => ({ id, name: id, active, isArchived: false, tags, hasTrigger: true, createdAt: at, updatedAt: at });
    const production = [{ id: "t1", name: "production" }];
    const n8n = await startN8nSim({ generation: 2, workflows: [wf("wfA", true, []), wf("wfB", false, production)], apiKeys: { "n8n-key-audit": {} } });
    try {
      const log = join(dir, "workflows.log");
      const policy = policyFile("version: 1\nn8n:\n  workflows:\n    keepActive: [\"tag:production\"]\n    unlisted: deactivate\n    listedInactive: publish\n  guard: { maxChanges: 10 }\n");
      const run = await warden(["workflows", "--apply", "--audit-log", log], { N8N_URL: n8n.url, N8N_API_KEY: "n8n-key-audit", WARDEN_POLICY: policy });
      expect(run.code, run.stderr).toBe(0);
      expect(auditLines(log).map((l) => l.outcome)).toEqual(["done", "done"]);
      expect(readFileSync(log, "utf8")).toBe(`${stderrLines(run.stderr).join("\n")}\n`);
    } finally {
      await n8n.close();
    }
  });
});

describe("pipeline --audit-log FILE", () => {
  it("appends the start's line, as on stderr", async () => {
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!.path_with_namespace;
    const policy = policyFile('version: 1\npipelines:\n  allow:\n    - project: "acme/**"\n      refs: ["**"]\n');
    const log = join(dir, "pipeline.log");
    const run = await warden(["pipeline", "--apply", project, "main", "--audit-log", log], { ...gitlab, WARDEN_POLICY: policy });
    expect(run.code, run.stderr).toBe(0);
    expect(auditLines(log)).toHaveLength(1);
    expect(readFileSync(log, "utf8")).toBe(`${stderrLines(run.stderr).join("\n")}\n`);
  });
});

describe("--audit-log FILE, a run stopped mid-apply", () => {
  const deletes = () => (sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0) + (sim.counters.byRoute["DELETE /groups/:id/share/:group_id"] ?? 0);
  /** Resolves once `condition` holds; fails if the run ends first. */
  async function until(condition: () => boolean, run: LiveRun): Promise<void> {
    let ended: CliRun | undefined;
    void run.done.then((r) => (ended = r));
    while (!condition()) {
      if (ended) expect.fail(`exited ${ended.code} first: ${ended.stderr}`);
      await sleep(5);
    }
  }

  it("SIGTERM: the file holds exactly the lines of the removals made or possibly made, as stderr does", async () => {
    const before = shares().length;
    const log = join(dir, "audit.log");
    const run = startWarden(["enforce", "--apply", "--json", "--concurrency", "2", "--audit-log", log], { ...gitlab, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) });
    await until(() => deletes() >= 3, run);
    run.kill("SIGTERM");
    const result = await run.done;
    await sleep(LATENCY_MS * 4);
    expect(result.code).toBe(1);
    expect(readFileSync(log, "utf8")).toBe(`${stderrLines(result.stderr).join("\n")}\n`);
    // One line per removal: a group share's confirmation line (lib/jobs/shares/remove.ts) is a second line of one share.
    const lines = auditLines(log).filter((l) => l.message.startsWith("remove-") && l.confirmation !== true);
    const done = lines.filter((l) => l.outcome === "done").length;
    const cutOff = lines.filter((l) => l.outcome === "failed");
    expect(cutOff.every((l) => l.error?.includes("it may or may not have happened"))).toBe(true);
    const removed = before - shares().length;
    expect(removed).toBeGreaterThanOrEqual(3);
    expect(removed).toBeGreaterThanOrEqual(done);
    expect(removed).toBeLessThanOrEqual(done + cutOff.length);
  });

  it("SIGKILL (no chance to clean up): every removal answered before it has its complete line on disk", async () => {
    const before = shares().length;
    const log = join(dir, "audit.log");
    const run = startWarden(["enforce", "--apply", "--concurrency", "2", "--audit-log", log], { ...gitlab, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) });
    // Killed mid-run, once a removal's answer has come back (five DELETEs arriving at the server is
    // not enough on a loaded machine: their answers may still be on the way when the kill comes).
    await until(() => deletes() >= 5 && linesOnDisk(log) >= 1, run);
    run.kill("SIGKILL");
    expect((await run.done).signal).toBe("SIGKILL");
    await sleep(LATENCY_MS * 4);
    const lines = auditLines(log);
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.every((l) => l.message.startsWith("remove-") && l.outcome === "done")).toBe(true);
    // Each line is a share that is really gone; a removal in flight when killed may be gone without one.
    const left = shares();
    for (const l of lines as unknown as { kind: string; projectId?: number; sharedGroupId?: number; groupId: number }[]) {
      expect(left.some((s) => s.startsWith(`${l.kind}:${l.kind === "project" ? l.projectId : l.sharedGroupId}:${l.groupId}:`))).toBe(false);
    }
    // A group share's removal may have a second line, its confirmation (lib/jobs/shares/remove.ts): one share each.
    expect(before - left.length).toBeGreaterThanOrEqual(lines.filter((l) => l.confirmation !== true).length);
  });
});

/** Complete lines in `path` so far (none while it does not exist). */
function linesOnDisk(path: string): number {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").length - 1 : 0;
}

/** What a terminal shows for `text`: "\r" returns to the line's start, ESC[K clears the rest, "\n" ends the line. */
function screen(text: string): string[] {
  const rows = [""];
  for (const part of text.split(/(\r|\x1b\[K|\n)/)) {
    if (part === "\n") rows.push("");
    else if (part === "\r" || part === "\x1b[K") rows[rows.length - 1] = part === "\x1b[K" ? rows.at(-1)! : "";
    else rows[rows.length - 1] += part;
  }
  return rows;
}

describe("on a terminal", () => {
  it("stderr shows a running count of changes and no JSON, the file gets the lines, and no progress line is glued to another", async () => {
    const log = join(dir, "audit.log");
    let stderr = "";
    let stdout = "";
    const code = await main(["enforce", "--apply", "--audit-log", log], {
      stdout: { write: (t) => (stdout += t), isTTY: false },
      stderr: { write: (t) => (stderr += t), isTTY: true },
      env: { ...gitlab, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) },
    });
    expect(code, stderr).toBe(0);
    const lines = auditLines(log);
    expect(lines.length).toBeGreaterThan(100);
    expect(stderr).not.toContain("{");
    // Progress was shown (the run takes seconds at this latency), then the count, redrawn in place.
    expect(stderr).toMatch(/\r\x1b\[Kexamining [\d,]+ projects?, [\d,]+ groups?: \d+ stray shares?/);
    expect(stderr).toContain(`\r\x1b[K1 change; audit lines in ${log}`);
    const rows = screen(stderr);
    expect(rows).toEqual([`${lines.length} changes; audit lines in ${log}`, ""]);
    expect(stdout).toMatch(/^Warden enforce/);
  });

  it("without --audit-log the count says the lines were not kept; off a terminal the JSON lines go to stderr on lines of their own", async () => {
    let tty = "";
    const env = { ...gitlab, WARDEN_POLICY: policyFile(standardPolicy()) };
    const ignore = { write: () => true };
    expect(await main(["enforce", "--apply"], { stdout: ignore, stderr: { write: (t) => (tty += t), isTTY: true }, env })).toBe(0);
    expect(screen(tty).at(-2)).toMatch(/^\d+ changes; audit lines not kept \(--audit-log FILE keeps them\)$/);

    let plain = "";
    expect(await main(["enforce", "--apply", "--audit-log", join(dir, "a.log")], { stdout: ignore, stderr: { write: (t) => (plain += t), isTTY: false }, env: { ...gitlab, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) } })).toBe(0);
    const rows = plain.split("\n").filter((l) => l !== "");
    expect(rows.every((l) => l.startsWith("{") || /^(examining [\d,]+ projects?, [\d,]+ groups?: \d+ stray shares?|removing [\d,]+ \/ [\d,]+)$/.test(l))).toBe(true);
    expect(rows.filter((l) => l.startsWith("{"))).toHaveLength(auditLines(join(dir, "a.log")).length);
  });
});

describe("stderr, the one place the CLI writes lines for a person", () => {
  it.each([true, false])("a live line is cleared (terminal) or ended (not one) before another line: isTTY %s", async (isTTY) => {
    let stderr = "";
    const io = redactedIO({ stdout: { write: () => true }, stderr: { write: (t) => (stderr += t), isTTY }, env: {} });
    const progress = progressLine(io);
    // Progress is drawn once its interval (100 ms on a terminal, 5 s off one) has passed; off a terminal a line is written whole.
    await sleep(120);
    progress.update(() => "listed 5 projects");
    if (!isTTY) io.stderr.write("a partial line");
    io.stderr.write("warden enforce: GitLab refused\n");
    expect(screen(stderr)).toEqual([isTTY ? "warden enforce: GitLab refused" : "a partial line", ...(isTTY ? [] : ["warden enforce: GitLab refused"]), ""]);
  });
});
