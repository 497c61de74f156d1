/**
 * The notices project named by path can be taken over: once its owners rename it, whoever may create a
 * project at the old path (a Developer of the group, by GitLab's default) gets every new notice, reads
 * it, and sets its due date, while the real notices are forgotten. Named by id (the policy takes either),
 * the notices stay where they are, whatever is created at the old path.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { noticesProjectWarning } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { ACCESS } from "../../../sim/gitlab/index.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { deletes, issues, later, NOTICES, run, sim, start, world } from "../../support/notices-world.ts";

describe("the notices project named by id", () => {
  it("a project created at its old path after a rename gets no notice; the real ones are kept and fall due", async () => {
    const byId = notifyPolicy().replace("project: security/access-notices", `project: ${NOTICES}`);
    await start(world());
    const first = await run({ apply: true, policy: byId });
    expect(first.actions.map((a) => [a.status, a.notice?.dueDate])).toEqual([["noticed", "2026-12-07"], ["noticed", "2026-12-07"]]);

    // Its maintainers rename it; jane takes the old path.
    sim.renameProject(NOTICES, "access-notices-2026");
    const squat = sim.createProject(40, "access-notices");
    squat.members = { jane: ACCESS.owner, root: ACCESS.reporter };

    const due = await run({ apply: true, now: later(8), policy: byId });
    expect(sim.work.issuesOf(squat.id)).toEqual([]);
    expect(due.actions.map((a) => a.status)).toEqual(["done", "done"]);
    expect(deletes()).toHaveLength(2);
    expect(issues().every((i) => i.state === "closed")).toBe(true);
  });
});

describe("warden policy check --online on a notices project named by id", () => {
  it("names no move: an id is no old path, and naming it by id is the very advice", async () => {
    const byId = parsePolicy(notifyPolicy().replace("project: security/access-notices", `project: ${NOTICES}`), "warden.yaml");
    const byPath = parsePolicy(notifyPolicy(), "warden.yaml");
    const dataset = world();
    dataset.projects.find((p) => p.id === NOTICES)!.visibility = "private";
    await start(dataset);
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    expect(await noticesProjectWarning(gitlab, byPath)).toBeUndefined();
    expect(await noticesProjectWarning(gitlab, byId)).toBeUndefined();
    // Moved, by path: still said.
    sim.renameProject(NOTICES, "access-notices-2026");
    expect(await noticesProjectWarning(gitlab, byPath)).toContain(`has moved to security/access-notices-2026`);
    expect(await noticesProjectWarning(gitlab, byId)).toBeUndefined();
  });
});
