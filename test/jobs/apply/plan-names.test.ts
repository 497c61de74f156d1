/**
 * A plan file is an artifact others can edit (docs/security.md's actors), and its checksum anyone can
 * recompute. `warden apply` acts on each removal's ids, judged again on GitLab's current state, and
 * names the project (or sharing group) and the invited group as GitLab calls them now: an edited plan
 * cannot make the reviewed dry run, the report or the audit trail name a harmless project while the
 * share removed is another's (it could until the project's name was taken from the plan's text).
 */
import { createHash } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { canonicalJson } from "../../../lib/jobs/canonical-json.ts";
import { applyPlan, enforce, planFile, readPlanFile } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { ACCESS, generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const client = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });

it("the apply report and audit lines name the project GitLab has at the removal's id, not the name an edited plan gives", async () => {
  const { dataset } = generateOrganisation({ projects: 120, seed: 11, groupShares: true });
  sim = await startGitLabSim({ dataset });
  const agency = dataset.groups.find((g) => g.full_path === "partners/agency-y")!;
  const victim = dataset.projects.find((p) => /^acme\/(?!legacy|mobile)/.test(p.path_with_namespace) && !p.shared_with_groups.some((s) => s.group_id === agency.id))!;
  victim.shared_with_groups.push({ group_id: agency.id, group_name: agency.name, group_full_path: agency.full_path, group_access_level: ACCESS.developer, expires_at: null });
  const policy = parsePolicy(groupSharesPolicy(), "warden.yaml");
  const report = await enforce({ gitlab: client(), policy });
  const removals = report.actions.filter((a) => a.kind === "project" && a.projectId === victim.id);
  expect(removals).toHaveLength(1);
  const written = planFile({ removals, policy, gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0.0.0-test", unmatchedRules: [] });

  // The edit: the removal now reads as if it were of a sandbox project; the checksum recomputed.
  const { checksum: _old, ...content } = JSON.parse(JSON.stringify(written)) as Record<string, unknown> & { removals: { project: string }[] };
  content.removals[0]!.project = "acme/sandbox/throwaway";
  const edited = { ...content, checksum: `sha256:${createHash("sha256").update(canonicalJson(content), "utf8").digest("hex")}` };
  const { plan, policy: planPolicy } = readPlanFile(JSON.stringify(edited), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 86_400_000, now: new Date() });

  // The reviewed dry run.
  const dry = await applyPlan({ gitlab: client(), plan, policy: planPolicy, apply: false });
  expect(dry.actions[0]).toMatchObject({ projectId: victim.id, status: "planned" });
  expect(dry.actions[0]).toMatchObject({ project: victim.path_with_namespace }); // today: "acme/sandbox/throwaway"

  // The removal and its audit line.
  const lines: Record<string, unknown>[] = [];
  const applied = await applyPlan({ gitlab: client(), plan, policy: planPolicy, apply: true, audit: { info: (_m, fields) => void lines.push(fields) } });
  expect(victim.shared_with_groups.some((s) => s.group_id === agency.id)).toBe(false);
  expect(applied.actions[0]).toMatchObject({ status: "done", project: victim.path_with_namespace });
  expect(lines[0]).toMatchObject({ projectId: victim.id, project: victim.path_with_namespace });
});
