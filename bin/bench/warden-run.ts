/**
 * Runs `warden enforce` as the CLI does, in a process of its own, bundled like the Lambda (so Node's
 * TypeScript loader is not in the measured memory): once per entry of `runs` ("apply", or
 * "dry,apply,dry"), with `--concurrency`/`--list-concurrency` when given, else with the CLI's defaults.
 * Args: url token policyFile runs [concurrency].
 */
import { Writable } from "node:stream";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { main } from "../cli/main.ts";
import { peakRssKB, printResult } from "./run-result.ts";

const [url, token, policy, runs, concurrency] = process.argv.slice(2) as [string, string, string, string, string | undefined];
/** Keeps what a stream was sent (the CLI's progress goes to stderr: only its last line, the error, is of use here). */
const collect = (into: { text: string }) => new Writable({ write: (chunk: Buffer, _e, done) => ((into.text += chunk.toString()), done()) });
const flags = concurrency ? ["--concurrency", concurrency, "--list-concurrency", concurrency] : [];
const started = performance.now();
let removed = 0;
let lowestConcurrency = Infinity;
const errors: string[] = [];
for (const run of runs.split(",")) {
  const [out, err] = [{ text: "" }, { text: "" }];
  const code = await main(["enforce", ...(run === "apply" ? ["--apply"] : []), "--json", "--policy", policy, ...flags], {
    stdout: collect(out),
    stderr: collect(err),
    env: { GITLAB_URL: url, GITLAB_TOKEN: token },
  });
  // A run that failed outright prints no report, only its error.
  if (!out.text.trim()) {
    errors.push(`${run}: exit ${code}: ${err.text.trim().split("\n").at(-1)}`);
    break;
  }
  const report = JSON.parse(out.text) as EnforceReport;
  removed += report.summary.removed + report.summary.alreadyGone;
  lowestConcurrency = Math.min(lowestConcurrency, report.stats.lowestConcurrency ?? Infinity);
  // A dry run that finds strays exits 2; anything else but 0 is a failure.
  if (code !== 0 && !(code === 2 && run === "dry")) errors.push(`${run}: exit ${code}: ${report.warnings.join("; ")}`);
}
printResult({ wallMs: performance.now() - started, maxRssKB: peakRssKB(), removed, ...(Number.isFinite(lowestConcurrency) ? { lowestConcurrency } : {}), ...(errors.length ? { error: errors.join(" | ") } : {}) });
