/**
 * A rule that matches nothing stops every applying run (gitlab.guard.unmatchedRules: refuse), as a
 * typo would: the shares it was meant to allow would be removed. But one that matched in a full run
 * under this same policy is no typo: its text is the one that matched. So a Maintainer who removed the
 * one share a rule matched (or deleted the project it names) stopped every removal, the sweep's and,
 * through the last-sweep record, the watch's and the stream's, until someone changed the policy (the
 * events7 review). Such a rule is named, not refused, unless a path it names moved (the shares it
 * allowed are stray now, under the new path) or could not be looked up; with no full run on record
 * under the policy (the CLI, a new policy) it is refused as before.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, sweepAfter, sweepOf, type EnforceOptions, type EnforceReport, type LastSweep } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { standardPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
let policy: string;
/** The one share the added rule, allow[2], matches: a project share otherwise stray. */
let kept: { projectId: number; groupId: number; projectPath: string };
/** Another stray, which an applying run removes unless its guard trips. */
let other: { projectId: number; groupId: number };

function run(opts: Partial<EnforceOptions> = {}): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return validated(enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(policy, "test.yaml") }));
}

const guardLines = (report: EnforceReport) => report.warnings.filter((w) => w.startsWith("guard:"));
const shareThere = (s: { projectId: number; groupId: number }) => sim.dataset.projects.find((p) => p.id === s.projectId)!.shared_with_groups.some((g) => g.group_id === s.groupId);

beforeEach(async () => {
  const { dataset, intents } = generateOrganisation({ projects: 200, seed: 7, now: NOW });
  sim = await startGitLabSim({ dataset });
  const strays = intents.flatMap((i) => (i.kind === "project" && i.intent === "stray" ? [{ projectId: i.projectId, groupId: i.groupId }] : []));
  const pathOf = (id: number) => dataset.projects.find((p) => p.id === id)!.path_with_namespace;
  const first = strays[0]!;
  kept = { ...first, projectPath: pathOf(first.projectId) };
  other = strays.find((s) => s.projectId !== kept.projectId && s.groupId !== kept.groupId)!;
  const group = dataset.groups.find((g) => g.id === kept.groupId)!.full_path;
  policy = standardPolicy(1000).replace("    exempt:\n", `      - group: "${group}"\n        projects: ["${kept.projectPath}"]\n    exempt:\n`);
});
afterEach(() => sim?.close());

describe("a rule that matched in a full run under this same policy, and matches nothing now", () => {
  /** Yesterday's sweep, which found allow[2] matching its one share. */
  async function yesterday(): Promise<LastSweep> {
    const sweep = sweepOf(await run())!;
    expect(sweep.unmatched).not.toContain("allow[2]");
    return sweep;
  }

  it("its share removed by someone else: named, but the sweep removes the rest, and the record keeps it off the typos", async () => {
    const record = await yesterday();
    await fetch(`${sim.url}/api/v4/projects/${kept.projectId}/share/${kept.groupId}`, { method: "DELETE", headers: { "PRIVATE-TOKEN": sim.token } });
    const today = await run({ apply: true, lastSweep: record });
    expect(guardLines(today), "the guard tripped on a rule whose share is gone").toEqual([]);
    expect(today.warnings).toContainEqual(expect.stringMatching(/allow\[2\]\) matched nothing, but matched in the last full run .* not refused, as what they matched is gone/));
    expect(shareThere(other)).toBe(false);
    // The record kept after today's (functions/shared/state/last-sweep.ts writes sweepAfter's) does not name it: the watch and the stream do not refuse it either.
    expect(sweepAfter(record, sweepOf(today)!).unmatched).not.toContain("allow[2]");
  });

  it("with no full run on record under the policy (the CLI, a policy just changed), refused as a typo would be", async () => {
    await fetch(`${sim.url}/api/v4/projects/${kept.projectId}/share/${kept.groupId}`, { method: "DELETE", headers: { "PRIVATE-TOKEN": sim.token } });
    const today = await run({ apply: true });
    expect(guardLines(today)).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[2\]\)/));
    expect(shareThere(other)).toBe(true);
  });

  it("the project it names renamed (its share stray now, under the new path): refused, the share kept", async () => {
    const record = await yesterday();
    sim.renameProject(kept.projectId, "renamed-away");
    const today = await run({ apply: true, lastSweep: record });
    expect(guardLines(today)).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[2\]\)/));
    expect(shareThere(kept)).toBe(true);
    expect(shareThere(other)).toBe(true);
  });
});
