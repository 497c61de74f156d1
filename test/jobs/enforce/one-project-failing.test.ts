/**
 * A project read by itself (projects/one.ts): a run's project target, or a project a full step left to
 * be read by its id in the next slice (slice.ts, past perStepBytes). Its `GET /projects/:id` answering
 * 500 for ever (after lib/http's retries) must leave only that project not examined, named, as a group
 * whose detail fails is: not fail the examination, the run, and every scheduled run after it (the
 * examine15 review).
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { recordingSteps } from "../../support/steps.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

function run(opts: Omit<Partial<EnforceOptions>, "policy"> = {}, steps?: Parameters<typeof enforce>[1]): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return validated(enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(groupSharesPolicy(), "test.yaml") }, steps));
}

it("a full run in steps whose projects left to be read by id answer 500 for ever goes on, and names each as not examined", async () => {
  const { dataset } = generateOrganisation({ projects: 400, seed: 7, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset, faults: [{ kind: "status", status: 500, route: "GET /projects/:id", times: 1_000_000 }] });
  const report = await run({}, recordingSteps({ sliceMs: 60_000, perStep: 1_000, perStepBytes: 2_000 }));
  const read = sim.counters.byRoute["GET /projects/:id"] ?? 0;
  expect(read).toBeGreaterThan(0);
  expect(report.unexamined?.length).toBeGreaterThan(0);
  for (const part of report.unexamined!) expect(part).toMatchObject({ kind: "project", error: expect.stringMatching(/answered 500/), lasting: false });
  expect(report.summary).toMatchObject({ complete: false });
  expect(report.warnings).toContainEqual(expect.stringMatching(/^project \d+ could not be examined: .*answered 500.*: its shares were not examined; the next run tries it again$/));
  expect(exitCode(report)).toBe(1);
  expect(report.actions.length).toBeGreaterThan(0);
});

it("a targeted project whose read fails in a step attempted again (the look-up's read is taken once) is named as not examined; the other target is judged", async () => {
  const { dataset } = generateOrganisation({ projects: 200, seed: 7, groupShares: true, now: NOW });
  const [bad, good] = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/platform/") && p.shared_with_groups.length > 0);
  sim = await startGitLabSim({ dataset });
  // The look-up reads both and the first attempt of the examination takes those reads; the attempt after its
  // crash reads them again, and `bad` fails there.
  const steps = recordingSteps({ sliceMs: 60_000, perStep: 1_000, crash: ["examine 1"] });
  const step = steps.step.bind(steps);
  steps.step = async (name, work, opts) => {
    const result = await step(name, work, opts);
    if (name === "begin") sim.addFaults({ kind: "status", status: 500, method: "GET", path: `/api/v4/projects/${bad!.id}`, times: 1_000_000 });
    return result;
  };
  const report = await run({ targets: [{ kind: "project", id: bad!.id }, { kind: "project", id: good!.id }] }, steps);
  expect(steps.crashed).toEqual(["examine 1"]);
  expect(report.unexamined).toEqual([{ kind: "project", id: bad!.id, path: bad!.path_with_namespace, error: expect.stringMatching(/answered 500/), lasting: false }]);
  expect(report.summary).toMatchObject({ projects: 1, complete: false });
});
