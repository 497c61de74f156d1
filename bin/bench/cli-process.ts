/**
 * Runs the packed CLI (dist/warden.js, as `npm pack`, bin/build-cli.ts, builds it) as a user runs it:
 * `node warden.js enforce …` with Node's own defaults, no NODE_OPTIONS (the bench's own, if any, is not
 * passed on). Its peak RSS comes from the process itself: a one-statement module given with `--import`
 * writes getrusage's maxRSS to a file as the process exits (Node gives a parent no child's rusage; a
 * file, not an inherited descriptor, because the CLI replaces itself under its heap settings,
 * bin/cli/heap-settings.ts, and execve keeps only stdio); it loads nothing else, so it adds nothing
 * measurable (the image before the execve is a Node start-up, far below the CLI's peak).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import type { NoticeSummary } from "../../lib/jobs/notices/index.ts";
import { tracked } from "./leftovers.ts";
import type { RunResult } from "./run-result.ts";

/** The module that writes the process's maxRSS (KB) to `file` as it exits. */
const exitHook = (file: string) => `data:text/javascript,${encodeURIComponent(`import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(${JSON.stringify(file)}, String(process.resourceUsage().maxRSS)));`)}`;

export interface CliRun extends RunResult {
  /** The report's request count, strays and notices, when the run printed one. */
  requests?: number;
  strays?: number;
  notices?: NoticeSummary;
}

/** `warden enforce --json --policy P [--apply]` against `url`; a dry run that finds strays exits 2, which is no failure. */
export function runCli(cli: string, url: string, token: string, policy: string, apply: boolean, timeoutS: number): Promise<CliRun> {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const args = ["enforce", "--json", "--policy", policy, ...(apply ? ["--apply"] : [])];
  return new Promise((resolve) => {
    // Beside the packed CLI, in the bench's directory: a bench stopped by a signal removes it with the rest.
    const dir = mkdtempSync(join(dirname(cli), "rss-"));
    const rssFile = join(dir, "max-rss");
    const started = performance.now();
    const child = tracked(spawn(process.execPath, ["--import", exitHook(rssFile), cli, ...args], { env: { ...env, GITLAB_URL: url, GITLAB_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] }));
    const out = { stdout: "", stderr: "" };
    child.stdout!.on("data", (chunk: Buffer) => (out.stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (out.stderr = (out.stderr + chunk.toString()).slice(-4096)));
    const timer = setTimeout(() => child.kill(), timeoutS * 1000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      let maxRssKB = NaN;
      try {
        maxRssKB = Number(readFileSync(rssFile, "utf8"));
      } catch {
        // Killed before it could write: the row says so.
      }
      rmSync(dir, { recursive: true, force: true });
      let report: EnforceReport | undefined;
      try {
        report = JSON.parse(out.stdout) as EnforceReport;
      } catch {
        report = undefined;
      }
      const failed = signal ? `stopped by ${signal} (timed out after ${timeoutS} s?)` : code !== 0 && !(code === 2 && !apply) ? `exit ${code}: ${out.stderr.trim().split("\n").at(-1) ?? ""}` : undefined;
      if (!report) return resolve({ wallMs, maxRssKB, removed: 0, error: failed ?? "no report printed" });
      resolve({
        wallMs,
        maxRssKB,
        removed: report.summary.removed + report.summary.alreadyGone,
        requests: report.stats.requests,
        strays: report.summary.strays,
        ...(report.summary.notices ? { notices: report.summary.notices } : {}),
        ...(failed ? { error: `${failed} ${report.warnings.join("; ")}`.trim() } : {}),
      });
    });
  });
}
