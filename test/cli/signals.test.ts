/**
 * Interruptions and long waits, against a real child process: SIGTERM and SIGHUP stop an apply as
 * Ctrl-C does (every audit line written, the report printed, exit 1), a second signal exits at once,
 * and a long wait is announced on stderr as it starts.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { policyFile, startWarden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";
import { opened } from "../support/fifo.ts";

const LATENCY_MS = 80;

let sim: GitLabSim;
let env: Record<string, string>;

beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 400, seed: 11 }).dataset, latencyMs: LATENCY_MS });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

const shares = () => sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.length, 0);
const deletes = () => sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(10);
}


describe("signals during --apply", () => {
  it.each(["SIGTERM", "SIGHUP", "SIGINT"] as const)("%s: the report is printed, one audit line per share really removed, exit 1", async (signal) => {
    const before = shares();
    expect(before).toBeGreaterThan(50);
    const run = startWarden(["enforce", "--apply", "--json", "--concurrency", "2"], env);
    await until(() => deletes() >= 3);
    run.kill(signal);
    const result = await run.done;
    // A request cancelled mid-flight may still reach the simulator, which applies it after its latency.
    await sleep(LATENCY_MS * 4);

    expect(result.signal).toBeUndefined();
    expect(result.code).toBe(1);
    const report = reportJson(result.stdout) as EnforceReport;
    expect(report.warnings.join("\n")).toContain(`interrupted by ${signal}`);
    expect(result.stderr).toContain(`warden enforce: interrupted by ${signal}: starting no new work`);
    const audit = result.stderr.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { message: string; outcome: string; error?: string });
    const lines = audit.filter((a) => a.message === "remove-share");
    const done = lines.filter((a) => a.outcome === "done").length;
    const cutOff = lines.filter((a) => a.outcome === "failed");
    expect(cutOff.every((a) => a.error?.includes("it may or may not have happened"))).toBe(true);
    expect(lines).toHaveLength(done + cutOff.length);
    // Every share removed has its line: done, or cut off mid-request (which may or may not have reached GitLab).
    const removed = before - shares();
    expect(removed).toBeGreaterThanOrEqual(3);
    expect(removed).toBeLessThan(before / 2);
    expect(removed).toBeGreaterThanOrEqual(done);
    expect(removed).toBeLessThanOrEqual(done + cutOff.length);
    // The report accounts for every removal attempted, as the audit does.
    expect(report.actions.filter((a) => a.status !== "planned")).toHaveLength(lines.length);
  });

  it("a second signal ends the process at once (killed by it: status 128 + its number), while the first waits on what cannot be cancelled", async () => {
    // A policy from a pipe nobody writes to (as from `--policy <(slow command)`): reading it cannot be cancelled.
    const fifo = join(mkdtempSync(join(tmpdir(), "warden-")), "policy.fifo");
    execFileSync("mkfifo", [fifo]);
    const run = startWarden(["enforce", "--apply", "--policy", fifo], env);
    // Opening the write end succeeds once warden has opened the read end: it is then up, and waiting.
    const writer = await opened(fifo);
    run.kill("SIGTERM");
    await run.stderrMatches(/interrupted by SIGTERM: starting no new work/);
    let exited = false;
    void run.done.then(() => (exited = true));
    await sleep(200);
    expect(exited).toBe(false);
    run.kill("SIGTERM");
    const result = await run.done;
    expect(result.signal).toBe("SIGTERM");
    expect(sim.counters.requests).toBe(0);
    closeSync(writer);
  });
});

describe("progress lines", () => {
  it("a long wait is announced on stderr as it starts, and Ctrl-C ends it", async () => {
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 30, route: "GET /user", times: 1 });
    const started = Date.now();
    const run = startWarden(["enforce"], env);
    await Promise.race([
      run.stderrMatches(/asked to wait 3\d s \(Retry-After\) on GET \/user; resuming at \d\d:\d\d:\d\d/),
      run.done.then((r) => expect.fail(`exited ${r.code} without a progress line: ${r.stderr}`)),
    ]);
    run.kill("SIGINT");
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.stderr.split("\n")[0]).toMatch(/^\S+ asked to wait 3\d s/);
  });
});
