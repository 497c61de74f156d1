/**
 * A plan file is an artifact others can edit (docs/security.md's actors), and its checksum anyone can
 * recompute. `warden apply` acts on each removal's ids, judged again on GitLab's current state, and
 * names the project (or sharing group) and the invited group as GitLab calls them now: an edited plan
 * cannot make the reviewed dry run, the report or the audit trail name a harmless project while the
 * share removed is another's (it could until the project's name was taken from the plan's text).
 */
import { expect, it } from "vitest";
import { applyPlan } from "../../../lib/jobs/index.ts";
import { planOfOneStray } from "../../support/edited-plan.ts";

it("the apply report and audit lines name the project GitLab has at the removal's id, not the name an edited plan gives", async () => {
  const { client, agency, victim, edited } = await planOfOneStray();

  // The edit: the removal now reads as if it were of a sandbox project; the checksum recomputed.
  const { plan, policy: planPolicy } = edited((content) => {
    content.removals[0]!["project"] = "acme/sandbox/throwaway";
  });

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
