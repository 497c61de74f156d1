/**
 * Runs `warden enforce --apply` as the CLI does, in a process of its own, bundled like the Lambda
 * (so Node's TypeScript loader is not in the measured memory). Args: url token policyFile concurrency.
 */
import { Writable } from "node:stream";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { main } from "../cli/main.ts";
import { peakRssKB, printResult } from "./run-result.ts";

const [url, token, policy, concurrency] = process.argv.slice(2) as [string, string, string, string];
let out = "";
const stdout = new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) });
const quiet = new Writable({ write: (_c, _e, done) => done() });

const started = performance.now();
const code = await main(["enforce", "--apply", "--json", "--policy", policy, "--concurrency", concurrency, "--list-concurrency", concurrency], {
  stdout,
  stderr: quiet,
  env: { GITLAB_URL: url, GITLAB_TOKEN: token },
});
const wallMs = performance.now() - started;
const report = JSON.parse(out) as EnforceReport;
printResult({
  wallMs,
  maxRssKB: peakRssKB(),
  removed: report.summary.removed + report.summary.alreadyGone,
  ...(code === 0 ? {} : { error: `exit ${code}: ${report.warnings.join("; ")}` }),
});
