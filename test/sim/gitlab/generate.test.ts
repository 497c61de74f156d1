/** generateOrganisation: a seed's organisation, its size, and the tricky names and shares the policy needs. */
import { describe, expect, it } from "vitest";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";

describe("generateOrganisation", () => {
  it("is deterministic for a seed", () => {
    const a = generateOrganisation({ seed: 7, projects: 500 });
    expect(generateOrganisation({ seed: 7, projects: 500 })).toEqual(a);
    expect(generateOrganisation({ seed: 8, projects: 500 }).dataset.projects).not.toEqual(a.dataset.projects);
  });

  it("generates 100,000 projects quickly, with about one subgroup per 50 projects", () => {
    const started = performance.now();
    const { dataset, intents } = generateOrganisation({ projects: 100_000 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(dataset.projects).toHaveLength(100_000);
    expect(dataset.groups.length).toBeGreaterThan(1_900);
    const strays = intents.filter((i) => i.intent === "stray").length;
    expect(strays / 100_000).toBeGreaterThan(0.02);
    expect(strays / 100_000).toBeLessThan(0.04);
  });

  it("has the tricky names, groups and shares the policy needs", () => {
    const { dataset, intents } = generateOrganisation({ projects: 200 });
    const paths = dataset.groups.map((g) => g.full_path);
    for (const p of ["acme/platform/infra-tools", "acme/mobile/ios", "acme/Web.Team", "acme/data_science/ml-ops", "acme/legacy", "partners/contractor-x", "acme-ext"]) {
      expect(paths).toContain(p);
    }
    expect(dataset.groups.some((g) => g.visibility === "private" && !g.full_path.startsWith("acme"))).toBe(true);
    const projectPaths = dataset.projects.map((p) => p.path).join(" ");
    for (const c of [".", "-", "_"]) expect(projectPaths).toContain(c);
    expect(projectPaths).toMatch(/[A-Z]/);
    expect(dataset.projects.every((p) => p.branches.includes("main") && p.branches.includes("release/1.0"))).toBe(true);
    expect(dataset.projects.filter((p) => p.previous_paths.length > 0)).toHaveLength(1);
    const groupNs = new Set(dataset.groups.map((g) => g.id));
    expect(dataset.users.every((u) => !groupNs.has(u.namespace_id))).toBe(true);
    expect(dataset.projects.some((p) => !groupNs.has(p.namespace_id) && p.shared_with_groups.length > 0)).toBe(true);

    // Every share has an intent, and each intent agrees with an independent reading of the policy.
    const byId = new Map(dataset.projects.map((p) => [p.id, p]));
    const shares = dataset.projects.flatMap((p) => p.shared_with_groups.map((s) => ({ p, s })));
    expect(intents).toHaveLength(shares.length);
    const expected = (project: string, group: string, level: number) => {
      if (!project.startsWith("acme/")) return "allowed";
      if (group.startsWith("acme/")) return "allowed";
      if (group === "partners/contractor-x" && project.startsWith("acme/mobile/") && level <= 30) return "allowed";
      return project.startsWith("acme/legacy/") ? "exempt" : "stray";
    };
    const seen = new Set<string>();
    for (const i of intents) {
      if (i.kind !== "project") throw new Error("group shares are generated only when asked");
      const project = byId.get(i.projectId)!;
      const share = project.shared_with_groups.find((s) => s.group_id === i.groupId)!;
      expect(i.intent).toBe(expected(project.path_with_namespace, share.group_full_path, share.group_access_level));
      seen.add(`${i.intent} ${share.group_full_path}${share.group_full_path === "partners/contractor-x" ? `@${share.group_access_level > 30 ? "above" : "within"}` : ""}`);
    }
    for (const kind of ["stray acme-ext", "stray partners/contractor-x@above", "allowed partners/contractor-x@within"]) expect(seen).toContain(kind);
    expect([...seen].some((k) => k.startsWith("exempt"))).toBe(true);
  });
});
