/**
 * The plan file carries each removal's `addedBy` (who created the share, from GitLab's audit events at
 * plan time) and `attribution`, and `warden apply` copied them into its report and into the audit line
 * of every share it removes. Without WARDEN_PLAN_KEY whoever can edit the artifact (checksum
 * recomputed) decided whom the audit trail of a real removal names as the share's adder: a colleague
 * framed, or the real adder hidden (the plans review's finding; the same class as the project's name,
 * test/jobs/apply/plan-names.test.ts). An unsigned plan's attribution is not repeated now; a signed
 * one's is Warden's own, and kept.
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
const FRAMED = { name: "Jane Doe", username: "jdoe", at: "2026-01-05T09:14:03.120Z", eventId: 424242 };

it("the audit line of a share apply removed names the adder GitLab records, not one an edited plan gives", async () => {
  const { dataset } = generateOrganisation({ projects: 120, seed: 11, groupShares: true });
  sim = await startGitLabSim({ dataset });
  const agency = dataset.groups.find((g) => g.full_path === "partners/agency-y")!;
  const victim = dataset.projects.find((p) => /^acme\/(?!legacy|mobile)/.test(p.path_with_namespace) && !p.shared_with_groups.some((s) => s.group_id === agency.id))!;
  victim.shared_with_groups.push({ group_id: agency.id, group_name: agency.name, group_full_path: agency.full_path, group_access_level: ACCESS.developer, expires_at: null });
  const policy = parsePolicy(groupSharesPolicy(), "warden.yaml");
  const report = await enforce({ gitlab: client(), policy });
  const removals = report.actions.filter((a) => a.kind === "project" && a.projectId === victim.id);
  expect(removals).toHaveLength(1);
  // What the reviewed dry run said of the share's adder (whatever GitLab's audit events gave).
  const honest = { addedBy: removals[0]!.addedBy, attribution: removals[0]!.attribution };
  expect(honest.addedBy?.username).not.toBe(FRAMED.username);
  const written = planFile({ removals, policy, gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0.0.0-test", unmatchedRules: [] });

  // The edit: the share now reads as added by Jane Doe; the checksum recomputed, the policy untouched.
  const { checksum: _old, ...content } = JSON.parse(JSON.stringify(written)) as Record<string, unknown> & { removals: Record<string, unknown>[] };
  content.removals[0]!["addedBy"] = FRAMED;
  delete content.removals[0]!["attribution"];
  const edited = { ...content, checksum: `sha256:${createHash("sha256").update(canonicalJson(content), "utf8").digest("hex")}` };
  const { plan, policy: planPolicy } = readPlanFile(JSON.stringify(edited), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 86_400_000, now: new Date() });

  const lines: Record<string, unknown>[] = [];
  const applied = await applyPlan({ gitlab: client(), plan, policy: planPolicy, apply: true, audit: { info: (_m, fields) => void lines.push(fields) } });
  // The share was really removed ...
  expect(victim.shared_with_groups.some((s) => s.group_id === agency.id)).toBe(false);
  expect(applied.actions[0]).toMatchObject({ status: "done", projectId: victim.id });
  expect(lines).toHaveLength(1);
  // ... and its audit line and report row do not name whoever the plan's editor chose (before: both said "Jane Doe").
  expect(lines[0]!["addedBy"]).toBeUndefined();
  expect(applied.actions[0]!.addedBy).toBeUndefined();
  // A signed plan's attribution is Warden's own (its signature verified with WARDEN_PLAN_KEY): kept.
  const signed = await applyPlan({ gitlab: client(), plan: readPlanFile(JSON.stringify(written), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 86_400_000, now: new Date() }).plan, policy: planPolicy, signed: true });
  expect(signed.actions[0]!.addedBy).toEqual(honest.addedBy);
});
