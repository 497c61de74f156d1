/**
 * GitLab changing under a run's listings, in ways that once made it skip something that never changed.
 * A large listing read from both ends (lib/jobs/enforce/examine/projects/both-ends.ts) while someone
 * creates a project in it: the ends stopped once they had seen as many projects as the first page
 * counted, the new project was counted in place of the one where they would have met, which was never
 * read (nor seen by the sweep, as it had not moved). They stop where their ids meet now. And a subgroup
 * renamed while the scope's subgroups are listed, by name as GitLab lists them by default: the pages
 * after it shifted, and the group at the next page's head was never read. They are listed by id now.
 */
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, type GitLabDataset, type SimGroup } from "../../../sim/gitlab/index.ts";
import { planned, run, sim, startSim } from "../../support/enforce-world.ts";

const group = (id: number, path: string): SimGroup => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "private", shared_with_groups: [] });

/** 1,000 projects directly in acme, each shared with `outside`: ten pages, one listing, read from both ends. */
function world(): GitLabDataset {
  const outside = group(2, "outside");
  const projects = Array.from({ length: 1_000 }, (_, i) => ({
    id: i + 1, name: `p${i}`, path: `p${i}`, path_with_namespace: `acme/p${i}`, namespace_id: 1, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
    shared_with_groups: [{ group_id: outside.id, group_name: outside.name, group_full_path: outside.full_path, group_access_level: 30, expires_at: null }],
  }));
  return { groups: [group(1, "acme"), outside], projects, users: [] };
}

const policy = parsePolicy('version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow:\n      - group: "acme/**"\n  guard: { maxRemovals: 10000 }\n', "test.yaml");

describe("a project created while a large group is listed from both ends", () => {
  it.each([true, false])("every stray is still planned (group details carry projects: %s)", async (detailProjects) => {
    await startSim({ dataset: world(), detailProjects });
    let created = false;
    sim.beforeAnswer(({ route, url }) => {
      // Someone creates a project in acme just as the descending end asks for its first page.
      if (created || route !== "GET /groups/:id/projects" || url.searchParams.get("sort") !== "desc" || url.searchParams.get("order_by") !== "id") return;
      created = true;
      sim.createProject(1, "new-service");
    });
    const report = await run({ policy });
    expect(created).toBe(true);
    expect(report.summary.complete).toBe(true);
    expect(planned(report)).toEqual(Array.from({ length: 1_000 }, (_, i) => `${i + 1}:2`).sort());
  });
});

describe("a subgroup renamed while the scope's subgroups are listed", () => {
  it.each([true, false])("every group in scope is still read (group details carry projects: %s)", async (detailProjects) => {
    // 150 subgroups: two pages of descendant_groups.
    const { dataset } = generateOrganisation({ projects: 600, seed: 9, groupShares: true, tree: { groups: 150, maxDepth: 2 } });
    await startSim({ dataset, detailProjects, recordRequests: true });
    const inScope = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/"));
    expect(inScope.length).toBeGreaterThan(101);
    // After the first page is served, the subgroup that sorts first by name is renamed to sort last.
    const first = inScope.filter((g) => g.parent_id !== null).sort((a, b) => a.name.localeCompare(b.name))[0]!;
    let pages = 0;
    sim.beforeAnswer(({ route }) => void (route === "GET /groups/:id/descendant_groups" && ++pages === 2 && (first.name = "zzz renamed")));
    const report = await run({ policy });
    expect(pages).toBe(2);
    const read = new Set(sim.requests.map((r) => /^\/api\/v4\/groups\/(\d+)(?:\?|$)/.exec(r.url)?.[1]).filter(Boolean).map(Number));
    expect(inScope.filter((g) => !read.has(g.id)).map((g) => g.full_path)).toEqual([]);
    expect(report.summary.groups).toBe(inScope.length);
  });
});
