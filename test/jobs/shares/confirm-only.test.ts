/**
 * removeShares with confirmOnly (lib/jobs/shares/remove.ts): the last part of a durable removal batch,
 * once the run's time limit has come, reads again the shares whose DELETE was sent unanswered and sends
 * none: one found gone is "done", one still there "failed" as a removal that may or may not have
 * happened (a slow DELETE is applied all the same), each with its audit line.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { plannedRemoval, shareKey, type ShareRemoval } from "../../../lib/jobs/shares/plan.ts";
import { removeShares } from "../../../lib/jobs/shares/remove.ts";
import { startSim } from "../../support/enforce-world.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const POLICY = parsePolicy("version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow: []\n", "confirm.yaml");

describe("removeShares, confirming only", () => {
  it("sends no DELETE: a share gone is done, one still there failed (it may or may not have happened), each with its audit line", async () => {
    const [acme, partners] = [simGroup(10, "acme", null), simGroup(20, "partners", null)];
    const [gone, kept] = [simProject(100, acme, "gone", []), simProject(101, acme, "kept", [shareWith(partners, 30)])];
    const sim = await startSim({ dataset: { groups: [acme, partners], users: [], projects: [gone, kept] }, recordRequests: true });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const share = { group_id: 20, group_name: "partners", group_full_path: "partners", group_access_level: 30, expires_at: null };
    const actions: ShareRemoval[] = [gone, kept].map((p) => plannedRemoval("project", { id: p.id, path: p.path_with_namespace }, share, "stray"));
    const lines: Record<string, unknown>[] = [];
    await removeShares(actions, {
      gitlab, policy: POLICY, now: new Date(), judgedAt: new Map(actions.map((a) => [a, 0])), concurrency: 4, maxPlanAgeMs: 60_000, warnings: [],
      mayHaveSent: new Set(actions.map(shareKey)), confirmOnly: true, audit: { info: (_message, fields) => lines.push(fields) },
    });
    expect(actions.map((a) => [a.kind === "project" && a.projectId, a.status])).toEqual([[100, "done"], [101, "failed"]]);
    expect(actions[1]!.error).toContain("may or may not have happened");
    expect(lines.map((l) => [l["projectId"], l["outcome"]]).sort()).toEqual([[100, "done"], [101, "failed"]]);
    expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });
});
