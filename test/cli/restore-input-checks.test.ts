/**
 * A restore input is checked before any request (bad input changes nothing): one made on another GitLab
 * than GITLAB_URL, whose ids name other projects and groups there (as `warden apply` refuses a plan made
 * for another), one with an access level no share can have, which GitLab would refuse only after
 * the shares before it were made, and one larger than any enforce run makes (more removals, or a file
 * heavier than the CLI's heap holds: read whole, it would end the process with no word of Warden's).
 * What fills the heap is the number of things in it, not the bytes, as apply found of a plan
 * (apply-many-removals.test.ts): under the 64 MB a file may weigh, a compact report of 495,000 removals
 * (62 MB) was copied whole before their number was counted, and a file of 21 million short lines was split
 * into 21 million strings at once; the process ended with V8's "heap out of memory" (exit 134) rather than
 * an error naming the cause (the restore15 review).
 */
import { truncateSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 40, seed: 3 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

/** A file beside the policy's, in the run's own temporary directory. */
const inputFile = (name: string) => env["WARDEN_POLICY"]!.replace(/warden\.yaml$/, name);

/** Projects in acme not shared with acme/platform, each a removal of its share with it at `accessLevel`, in a report made on `gitlabUrl`. */
function reportFile(name: string, gitlabUrl: string, levels: number[]) {
  const invited = sim.dataset.groups.find((g) => g.full_path === "acme/platform")!;
  const projects = sim.dataset.projects.filter((p) => /^acme\/(?!legacy\/)/.test(p.path_with_namespace) && !p.shared_with_groups.some((s) => s.group_id === invited.id));
  const actions = levels.map((accessLevel, i) => ({
    type: "remove-share", kind: "project", projectId: projects[i]!.id, project: projects[i]!.path_with_namespace, groupId: invited.id, group: invited.full_path, accessLevel, expiresAt: null, reason: "stray", status: "done",
  }));
  const file = inputFile(name);
  writeFileSync(file, JSON.stringify({ schemaVersion: 1, job: "enforce", version: "0.1.0", gitlabUrl, dryRun: false, actions }));
  return { file, invited, projects };
}

it("a report made on another GitLab than GITLAB_URL is refused before any request, naming both", async () => {
  const { file } = reportFile("staging-report.json", "https://gitlab.staging.example.com", [50]);
  sim.resetCounters();
  const run = await warden(["restore", file, "--apply", "--json"], env);
  expect(run.code, run.stdout).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(/was made on https:\/\/gitlab\.staging\.example\.com, not on GITLAB_URL's http:\/\/127\.0\.0\.1:\d+/);
  expect(sim.counters.requests).toBe(0);
});

it("a report made on another GitLab of the same host, under another path, is refused too (its ids name other projects)", async () => {
  const { file } = reportFile("staging-report.json", `${sim.url}/staging`, [50]);
  sim.resetCounters();
  const run = await warden(["restore", file, "--apply", "--json"], env);
  expect(run.code, run.stdout).toBe(1);
  expect(run.stderr).toMatch(/was made on http:\/\/127\.0\.0\.1:\d+\/staging, not on GITLAB_URL's http:\/\/127\.0\.0\.1:\d+[,:]/);
  expect(sim.counters.requests).toBe(0);
});

it("a report with an access level no share can have is refused before any request; nothing is created", async () => {
  const { file, invited, projects } = reportFile("report.json", sim.url, [30, 35]);
  sim.resetCounters();
  const run = await warden(["restore", file, "--apply", "--json"], env);
  expect(projects[0]!.shared_with_groups.some((s) => s.group_id === invited.id)).toBe(false);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(/accessLevel: expected one of GitLab's share access levels \(10, 15, 20, 30, 40, 50\), got 35/);
  expect(sim.counters.requests).toBe(0);
});

it("an input of more removals than any enforce run makes, or a file heavier than restore reads, is refused before any request", async () => {
  const invited = sim.dataset.groups.find((g) => g.full_path === "acme/platform")!;
  const line = (i: number) => JSON.stringify({ level: "INFO", message: "remove-share", kind: "project", projectId: 1_000_000 + i, project: `acme/p${i}`, groupId: invited.id, group: invited.full_path, accessLevel: 30, expiresAt: null, rule: "stray", outcome: "done" });
  const many = inputFile("many.log");
  writeFileSync(many, Array.from({ length: 100_001 }, (_, i) => line(i)).join("\n"));
  const heavy = inputFile("heavy.json");
  // Sparse: 200 MB to stat, nothing on the disk.
  writeFileSync(heavy, "");
  truncateSync(heavy, 200 * 1024 * 1024);
  sim.resetCounters();
  const tooMany = await warden(["restore", many, "--apply", "--json"], env);
  expect(tooMany.code).toBe(1);
  expect(tooMany.stderr).toMatch(/100001 removals, more than one enforce run makes \(100000\): give one run's report or audit lines/);
  const tooHeavy = await warden(["restore", heavy, "--json"], env);
  expect(tooHeavy.code).toBe(1);
  expect(tooHeavy.stderr).toMatch(/heavy\.json is 200 MB, more than restore reads \(64 MB\): give one enforce run's report or audit lines/);
  expect(sim.counters.requests).toBe(0);
});

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
