/**
 * What a restore's report tells of a project outside the policy's scope (the restore review, fourth
 * pass). The honest case: an applying run removed a stray share of acme/…, and the project was since
 * transferred out of acme, into a private group Warden does not govern; the forged case: an input (a
 * console event, an edited artifact) naming any id. The restore read the project by id with the
 * administrator's token, named it where GitLab has it now and said how it is shared there, to whoever
 * reads the report (a Slack channel, the console invoker), who may not see that group in GitLab; the
 * pipeline job refuses a moved project "without saying where that is" for this reason. Now the scope
 * is judged on GitLab's path first, and an out-of-scope subject is skipped by its id alone, nothing more read.
 */
import { describe, expect, it } from "vitest";
import { parseRestoreText, restore } from "../../../lib/jobs/index.ts";
import { renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { validated } from "../../support/report.ts";
import { client, setup, sim, standard } from "../../support/restore-world.ts";

describe("restore: a project that left the scope since its share was removed", () => {
  it("is not named where it is now (outside the scope) in the report, its text or its Slack summary", async () => {
    await setup();
    // An acme project with a share of an outside group (stray under the standard policy), as enforce --apply removed it.
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/") && p.shared_with_groups.some((s) => !s.group_full_path.startsWith("acme")))!;
    const removed = project.shared_with_groups.find((s) => !s.group_full_path.startsWith("acme"))!;
    project.shared_with_groups.splice(project.shared_with_groups.indexOf(removed), 1);
    const before = project.path_with_namespace;
    const report = JSON.stringify({
      job: "enforce",
      dryRun: false,
      actions: [{ type: "remove-share", kind: "project", projectId: project.id, project: before, groupId: removed.group_id, group: removed.group_full_path, accessLevel: removed.group_access_level, expiresAt: removed.expires_at, reason: "stray", status: "done" }],
    });
    // Then the project is transferred to a private group outside the policy's scope.
    const elsewhere = sim.dataset.groups.find((g) => !g.full_path.startsWith("acme") && !g.full_path.startsWith("partners") && g.id !== removed.group_id)!;
    const moved = sim.moveProject(project.id, elsewhere.id);
    expect(moved.path_with_namespace.startsWith("acme/")).toBe(false);
    const whereNow = moved.path_with_namespace;

    const out = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(report) }));
    expect(out.actions[0]).toMatchObject({ status: "skipped", policy: { verdict: "out-of-scope" } });
    const outputs = { json: JSON.stringify(out), text: renderText(out, { color: false, width: 200 }), slack: JSON.stringify(renderSlack(out)) };
    for (const [name, text] of Object.entries(outputs)) expect(text, `the ${name} output names the project where it is now, outside the scope`).not.toContain(whereNow);
  });

  it("does not say how a project outside the scope is shared now (an input naming its id and a group's)", async () => {
    await setup();
    // A project outside the scope, shared with some group: whoever writes the input (a console event) names both ids.
    const other = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length)!;
    const share = other.shared_with_groups[0]!;
    const input = JSON.stringify({
      job: "enforce",
      dryRun: false,
      actions: [{ type: "remove-share", projectId: other.id, project: "acme/anything", groupId: share.group_id, group: "acme/anything", accessLevel: 10, expiresAt: null, reason: "stray", status: "done" }],
    });
    const out = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(input) }));
    // What GitLab has outside the scope is no business of a restore: the report should say only that the id is not in scope.
    expect(JSON.stringify(out), "the report names the out-of-scope project's path").not.toContain(other.path_with_namespace);
    expect(out.actions[0]!.status, "the report says the out-of-scope project is shared with that group (and at what level)").not.toBe("already-present");
  });
});
