/**
 * A large listing read from both ends (lib/jobs/enforce/examine/projects/both-ends.ts) while someone
 * creates a project in it. The ends stopped once they had seen as many projects as the first page
 * counted: the new project, the descending end's first, was counted in place of the one where the two
 * would have met, which was never read though it never changed (nor seen by the sweep, as it had not
 * moved), and its stray shares went unplanned. They stop where their ids meet now.
 */
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset, SimGroup } from "../../../sim/gitlab/index.ts";
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
