/**
 * A hostile review's finding (package14, bin/warden.ts and bin/cli/io.ts): off a terminal and without
 * --audit-log, an applying run's audit lines go to stderr and nowhere else. bin/warden.ts swallowed every
 * error of stderr, so once it could not be written (`warden enforce --apply 2>&1 | less` and `q`, or
 * `| head`; `2> audit.jsonl` on a full disk) the run went on removing every share, each line lost, and
 * exited 0: no undo trail for any of them. Now the run stops starting changes, as when --audit-log's file
 * fails, the report says why, and the exit is 1.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { inject } from "vitest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../../bin/build-cli.ts";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, type CliRun } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";

const LATENCY_MS = 40;

let sim: GitLabSim;
let env: Record<string, string>;

beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 300, seed: 11 }).dataset, latencyMs: LATENCY_MS });
  env = { PATH: process.env["PATH"] ?? "", NODE_COMPILE_CACHE: inject("compileCache"), GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

const shares = () => sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.length, 0);

describe("an applying run whose stderr, the only home of its audit lines, can no longer be written", () => {
  it("its reader gone (2>&1 | head): no new removal is started, the report says why, exit 1", async () => {
    const before = shares();
    expect(before).toBeGreaterThan(50);
    const child = spawn(process.execPath, [BUILT_CLI, "enforce", "--apply", "--json", "--concurrency", "1"], { env });
    let stdout = "";
    let lines = 0;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    const done = new Promise<CliRun>((resolve) => child.on("close", (code, signal) => resolve({ code: code ?? 1, ...(signal ? { signal } : {}), stdout, stderr: "" })));
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        lines += String(chunk).split("\n").filter((l) => l.startsWith("{")).length;
        // The reader goes away after the second line, as `head -2` does.
        if (lines >= 2) {
          child.stderr.destroy();
          resolve();
        }
      });
    });
    const result = await done;
    await sleep(LATENCY_MS * 4);
    const removed = before - shares();
    // The lines read, and at most a few more whose requests were under way when the pipe broke.
    expect(removed).toBeLessThan(before / 2);
    expect(result.code).toBe(1);
    const report = reportJson(result.stdout) as EnforceReport;
    expect(report.summary.complete).toBe(false);
    expect(report.warnings.join("\n")).toMatch(/standard error .*EPIPE/);
  });

  it.runIf(existsSync("/dev/full"))("a full disk under 2> audit.jsonl: no new removal is started, the report says why, exit 1", async () => {
    const before = shares();
    const full = openSync("/dev/full", "w");
    const child = spawn(process.execPath, [BUILT_CLI, "enforce", "--apply", "--json", "--concurrency", "1"], { env, stdio: ["ignore", "pipe", full] });
    closeSync(full);
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk));
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    await sleep(LATENCY_MS * 4);
    expect(before - shares()).toBeLessThanOrEqual(3);
    expect(code).toBe(1);
    const report = reportJson(stdout) as EnforceReport;
    expect(report.summary.complete).toBe(false);
    expect(report.warnings.join("\n")).toMatch(/standard error .*ENOSPC/);
  });

  it("a dry run is not stopped by it (it records no change): its report is complete, exit 2", async () => {
    const full = openSync("/dev/full", "w");
    const child = spawn(process.execPath, [BUILT_CLI, "enforce", "--json"], { env, stdio: ["ignore", "pipe", full] });
    closeSync(full);
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk));
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    expect(code).toBe(2);
    expect((reportJson(stdout) as EnforceReport).summary.complete).toBe(true);
  });
});
