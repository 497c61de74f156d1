/**
 * A restore input under restore's 64 MB limit (bin/cli/io.ts readWholeFile) that still filled the CLI's 256 MB
 * heap (lib/config/node-options.ts, the Enforce function's too, which reads a stored run of up to 64 MB):
 * the process ended with V8's "heap out of memory" (exit 134, a native stack trace) rather than an error
 * naming the cause. What fills the heap is the number of things in it, not the bytes, as apply found
 * of a plan (test/cli/apply-many-removals.test.ts): a compact report of 495,000 removals (62 MB) made
 * copies of every one before their number was counted, and a file of 21 million short lines was split
 * into 21 million strings at once.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 10, seed: 3 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

const inputFile = (name: string) => env["WARDEN_POLICY"]!.replace(/warden\.yaml$/, name);
const crashed = /FATAL ERROR|heap out of memory|Native stack trace/;

it("a compact report of 495,000 removals, under 64 MB, is refused by their number, never a crash of the process", { timeout: 180_000 }, async () => {
  const file = inputFile("compact-report.json");
  const action = (i: number) => `{"type":"remove-share","projectId":${i + 1},"project":"a","groupId":1,"group":"b","accessLevel":30,"expiresAt":null,"status":"done"}`;
  writeFileSync(file, `{"job":"enforce","dryRun":false,"actions":[${Array.from({ length: 495_000 }, (_, i) => action(i)).join(",")}]}`);
  sim.resetCounters();
  const run = await warden(["restore", file, "--json"], env);
  expect(run.stderr, "the process died of a full heap").not.toMatch(crashed);
  expect(run.stderr).toMatch(/compact-report\.json: an enforce report lists 495000 actions, more than one enforce run makes \(100000\): give one run's report or audit lines/);
  expect(run.code).toBe(1);
  expect(sim.counters.requests).toBe(0);
});

it("a file of 21 million short lines, under 64 MB, is read a line at a time: refused as holding no audit line, never a crash", { timeout: 180_000 }, async () => {
  const file = inputFile("braces.log");
  writeFileSync(file, "{}\n".repeat(21_000_000));
  sim.resetCounters();
  const run = await warden(["restore", file, "--json"], env);
  expect(run.stderr, "the process died of a full heap").not.toMatch(crashed);
  expect(run.stderr).toMatch(/no remove-share or remove-group-share audit line found, and not an enforce report \(21000001 lines read; it starts "\{\}"\)/);
  expect(run.code).toBe(1);
  expect(sim.counters.requests).toBe(0);
});
