/** Restore asks the current policy (lib/jobs/restore/policy-check.ts): whoever wrote the input chose every share in it. */
import { describe, expect, it } from "vitest";
import { parseRestoreText, restore } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { standardPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { client, onlyGets, posts, setup, sim, standard, unsharedOutsideGroup } from "../../support/restore-world.ts";

describe("restore asks the current policy", () => {
  /**
   * Whoever wrote the input chose every share in it: an allowed one (an acme group on an acme project),
   * an outside group at owner, the same outside group under an allowed group's name, and a project
   * outside the policy's scope.
   */
  function attackerFile() {
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/"))!;
    const acmeGroup = sim.dataset.groups.find((g) => g.full_path.startsWith("acme/") && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
    const outside = unsharedOutsideGroup(project);
    const other = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/") && !p.shared_with_groups.some((s) => s.group_id === acmeGroup.id))!;
    const share = (p: typeof project, groupId: number, group: string, accessLevel: number) => ({ type: "remove-share", projectId: p.id, project: p.path_with_namespace, groupId, group, accessLevel, expiresAt: null, reason: "stray", status: "done" });
    const text = JSON.stringify({
      job: "enforce",
      dryRun: false,
      actions: [share(project, acmeGroup.id, acmeGroup.full_path, 30), share(project, outside.id, outside.full_path, 50), share(project, outside.id, "acme/disguised", 50), share(other, acmeGroup.id, acmeGroup.full_path, 30)],
    });
    return { text, project, acmeGroup, outside, other };
  }

  it("a share the policy does not allow is skipped, judged by GitLab's paths for its ids, and nothing of it is created", async () => {
    await setup();
    const { text, outside } = attackerFile();
    const input = parseRestoreText(text);
    // Two lines for one share (the same ids): the last one is what the input asks for.
    expect(input.removals).toHaveLength(3);
    const report = await validated(restore({ gitlab: client(), policy: standard(), input, apply: true }));
    expect(report.actions.map((a) => [a.status, a.policy?.verdict])).toEqual([
      ["done", "allowed"],
      ["skipped", "stray"],
      ["skipped", "out-of-scope"],
    ]);
    // The disguised name is not what the report shows, nor what the policy was asked about; skipped, the group is named by its id.
    expect(report.actions[1]).toMatchObject({ group: `group #${outside.id}`, note: expect.stringMatching(/^the policy does not allow it \(no allow rule matches group #\d+.*\): not restored; change the policy first, or ask for it anyway with --include-stray/) });
    expect(report.summary).toMatchObject({ restores: 1, restored: 1, skipped: 2, notAllowed: 2, includeStray: false });
    expect(report.warnings.join("\n")).toMatch(/1 share the current policy does not allow: not restored \(skipped\)\. Change the policy first/);
    expect(report.warnings.join("\n")).toMatch(/1 share outside the policy's scope not restored, even with --include-stray: no run would ever remove it again/);
    expect(posts()).toBe(1);
  });

  it("a share whose custom role the policy's maxAccess rule does not name is not restored, though its level is allowed", async () => {
    await setup();
    const contractor = sim.dataset.groups.find((g) => g.full_path === "partners/contractor-x")!;
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/mobile/") && !p.shared_with_groups.some((s) => s.group_id === contractor.id))!;
    const share = (memberRoleId?: number) => ({ type: "remove-share", projectId: project.id, project: project.path_with_namespace, groupId: contractor.id, group: contractor.full_path, accessLevel: 10, expiresAt: null, ...(memberRoleId ? { memberRoleId } : {}), reason: "stray", status: "done" });
    const judged = async (memberRoleId?: number) => (await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(JSON.stringify({ job: "enforce", dryRun: false, actions: [share(memberRoleId)] })) }))).actions[0]!;
    expect(await judged(9)).toMatchObject({ status: "skipped", policy: { verdict: "stray", reason: expect.stringMatching(/^#\d+ at guest with custom role 9 exceeds maxAccess developer of allow\[\d\]/) } });
    expect(await judged()).toMatchObject({ status: "planned", policy: { verdict: "allowed" } });
    expect(onlyGets()).toBe(true);
  });

  it("a dry run shows, for each share, whether the policy allows it, and sends only GET", async () => {
    await setup();
    const { text } = attackerFile();
    sim.resetCounters();
    const report = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(text) }));
    expect(report.actions.map((a) => [a.status, a.policy])).toEqual([
      ["planned", { verdict: "allowed", rule: "allow[0] acme/**" }],
      ["skipped", { verdict: "stray", reason: expect.stringMatching(/^no allow rule matches group /) }],
      ["skipped", { verdict: "out-of-scope", reason: expect.stringMatching(/^the (project|sharing group) #\d+ is not in the policy.s scope now/) }],
    ]);
    expect(onlyGets()).toBe(true);
  });

  it("with includeStray every stray share is created, and the run warns that a later run removes them again; one outside the scope is not, as no run would", async () => {
    await setup();
    const { text, project, outside } = attackerFile();
    const report = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(text), apply: true, includeStray: true }));
    expect(report.actions.map((a) => a.status)).toEqual(["done", "done", "skipped"]);
    expect(report.actions[1]!.note).toMatch(/^the policy does not allow it \(.*\): included as includeStray asks; a later run removes it again \(as gitlab.shares.onStray says\) unless the policy changes first$/);
    expect(report.actions[2]!.note).toMatch(/^the policy does not allow it \(the project #\d+ is not in the policy.s scope now .*\): not restored, even with --include-stray, as no run would ever remove it again$/);
    expect(report.summary).toMatchObject({ restored: 2, notAllowed: 2, includeStray: true });
    expect(report.warnings.join("\n")).toMatch(/includeStray: 1 share the current policy does not allow re-created; a later run removes them again/);
    expect(report.warnings.join("\n")).toMatch(/1 share outside the policy's scope not restored, even with --include-stray: no run would ever remove it again/);
    expect(project.shared_with_groups.find((s) => s.group_id === outside.id)).toMatchObject({ group_access_level: 50 });
    expect(posts()).toBe(2);
  });

  it("an exemption of every share of a project is no allowance: a share only it keeps, which no run would ever remove, is restored with includeStray alone", async () => {
    // Whoever edits the report a CI job feeds to restore adds a "removal" of an exempt project's share with an
    // outside group at Owner: the standard policy exempts acme/legacy/** (no sharedWith), so no run would remove it.
    await setup();
    const legacy = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/legacy/") && !p.shared_with_groups.length)!;
    const outside = unsharedOutsideGroup(legacy);
    const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", projectId: legacy.id, project: legacy.path_with_namespace, groupId: outside.id, group: outside.full_path, accessLevel: 50, expiresAt: null, reason: "stray", status: "done" }] });
    const refused = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(text), apply: true }));
    expect(refused.actions.map((a) => [a.status, a.policy])).toEqual([["skipped", { verdict: "exempt", rule: "exempt[0] acme/legacy/**", unallowed: expect.stringMatching(/^no allow rule matches group /) }]]);
    expect(refused.actions[0]!.note).toMatch(/^exempt\[0\] acme\/legacy\/\*\* exempts every share of acme\/legacy\/.+, so no run would remove it again, but no allow rule allows it \(.+\): not restored; allow it in the policy, name the group in the exemption's sharedWith, or ask for it anyway with --include-stray/);
    expect(refused.summary).toMatchObject({ restored: 0, notAllowed: 1 });
    expect(refused.warnings).toEqual([expect.stringMatching(/^1 share only an exemption of their subject's every share keeps, which no allow rule allows: not restored \(skipped\)/)]);
    expect(posts()).toBe(0);

    const asked = await validated(restore({ gitlab: client(), policy: standard(), input: parseRestoreText(text), apply: true, includeStray: true }));
    expect(asked.actions.map((a) => a.status)).toEqual(["done"]);
    expect(asked.warnings).toEqual([expect.stringMatching(/^includeStray: 1 share only an exemption of their subject's every share keeps, which no allow rule allows, re-created; no run removes them while the exemption lasts$/)]);
    expect(legacy.shared_with_groups.find((s) => s.group_id === outside.id)).toMatchObject({ group_access_level: 50 });

    // An exemption that names the group (sharedWith) is the policy's own word for that very share: restored as allowed.
    legacy.shared_with_groups = [];
    const named = parsePolicy(standardPolicy().replace('- project: "acme/legacy/**"', `- { project: "acme/legacy/**", sharedWith: "${outside.full_path}" }`), "named.yaml");
    const restored = await validated(restore({ gitlab: client(), policy: named, input: parseRestoreText(text), apply: true }));
    expect(restored.actions.map((a) => [a.status, a.policy])).toEqual([["done", { verdict: "exempt", rule: `exempt[0] acme/legacy/** shared with ${outside.full_path}` }]]);
    expect(restored.warnings).toEqual([]);
  });

  it("an exemption for every invited group written as sharedWith: \"**\" is no allowance either: an outside group's Owner share no allow rule allows is not re-created without includeStray", async () => {
    await setup();
    const legacy = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/legacy/") && !p.shared_with_groups.length)!;
    const outside = unsharedOutsideGroup(legacy);
    const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", projectId: legacy.id, project: legacy.path_with_namespace, groupId: outside.id, group: outside.full_path, accessLevel: 50, expiresAt: null, reason: "stray", status: "done" }] });
    const policy = parsePolicy(standardPolicy().replace('- project: "acme/legacy/**"', '- { project: "acme/legacy/**", sharedWith: "**" }'), "any.yaml");
    const report = await validated(restore({ gitlab: client(), policy, input: parseRestoreText(text), apply: true }));
    expect(report.actions.map((a) => a.status)).toEqual(["skipped"]);
    expect(posts()).toBe(0);
    expect(legacy.shared_with_groups.find((s) => s.group_id === outside.id)).toBeUndefined();
  });
});
