/**
 * A plan file is an artifact others can edit (docs/security.md's actors), and its checksum anyone can
 * recompute. `warden apply` acts on each removal's ids, judged again on GitLab's current state, and
 * names the project (or sharing group) and the invited group as GitLab calls them now: an edited plan
 * cannot make the reviewed dry run, the report or the audit trail name a harmless project while the
 * share removed is another's (it could until the project's name was taken from the plan's text).
 */
import { expect, it } from "vitest";
import { applyPlan } from "../../../lib/jobs/index.ts";
import { renderText } from "../../../lib/jobs/render/index.ts";
import { ACCESS } from "../../../sim/gitlab/index.ts";
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

// The second plans review: apply read each subject by its id with the administrator's token, named it as GitLab
// does and compared the share's level with the plan's before it looked at the scope, so its report (the CI job's
// log and artifact) told whoever edited the plan where any project is and how it is shared, as restore no longer
// does (test/jobs/restore/out-of-scope-names.test.ts); and a row not removed kept the plan's group name.
it("a plan edited to name a project outside the scope: the report does not name it where GitLab has it, nor say how it is shared (skipped by its id alone)", async () => {
  const { sim, client, edited } = await planOfOneStray();
  // A private project outside acme (the policy's scope), shared with a group: what the editor wants to learn.
  const hidden = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length > 0)!;
  expect(hidden, "the simulated organisation has a shared project outside acme").toBeDefined();
  const share = hidden.shared_with_groups[0]!;
  const guessed = share.group_access_level === ACCESS.guest ? ACCESS.reporter : ACCESS.guest;
  // The edit: the one removal now names the hidden project's id and its group's, under an acme path, at a guessed level.
  const { plan, policy } = edited((content) => {
    Object.assign(content.removals[0]!, { projectId: hidden.id, groupId: share.group_id, accessLevel: guessed, expiresAt: null });
  });

  const report = await applyPlan({ gitlab: client(), plan, policy, apply: false });
  const outputs = { json: JSON.stringify(report), text: renderText(report, { color: false, width: 200 }) };
  for (const [name, text] of Object.entries(outputs)) {
    expect(text, `the ${name} report names the out-of-scope project where it is`).not.toContain(hidden.path_with_namespace);
    expect(text, `the ${name} report tells the share's current level`).not.toMatch(/access level (raised|lowered) from/);
  }
});

it("a plan whose group names differ from its ids: a row not removed names the invited group as GitLab does, not as the edited plan does", async () => {
  const { sim, client, victim, edited } = await planOfOneStray();
  // The victim project's share with an acme group, which the policy allows (acme/**).
  const allowed = victim.shared_with_groups.find((s) => s.group_full_path.startsWith("acme/")) ?? (() => {
    const g = sim.dataset.groups.find((x) => x.full_path.startsWith("acme/"))!;
    const s = { group_id: g.id, group_name: g.name, group_full_path: g.full_path, group_access_level: 30, expires_at: null };
    victim.shared_with_groups.push(s);
    return s;
  })();
  // The edit: the removal names that share's group id, under an outside group's name, as a reviewer would read it.
  const { plan, policy } = edited((content) => {
    Object.assign(content.removals[0]!, { groupId: allowed.group_id, group: "partners/contractor-z", accessLevel: allowed.group_access_level, expiresAt: allowed.expires_at ?? null });
  });
  const lines: Record<string, unknown>[] = [];
  const report = await applyPlan({ gitlab: client(), plan, policy, apply: true, audit: { info: (_m, fields) => void lines.push(fields) } });
  expect(report.actions[0]).toMatchObject({ status: "skipped", projectId: victim.id, project: victim.path_with_namespace });
  expect(report.actions[0]!.group, "the report names the group the plan's editor chose").toBe(allowed.group_full_path);
  expect(lines[0]?.["group"], "the audit line names the group the plan's editor chose").toBe(allowed.group_full_path);
});
