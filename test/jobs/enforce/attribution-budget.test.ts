/**
 * What attribution may cost (lib/jobs/enforce/attribution.ts): only the removals a run may make are
 * attributed (after the guard), within a budget of audit-event requests the report states, and no
 * answer of the audit-event endpoints fails the run. Requests are counted on the simulator, by path.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode } from "../../../lib/jobs/index.ts";
import { attributionBudget, MIN_ATTRIBUTION_BUDGET } from "../../../lib/jobs/enforce/attribution.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim, type GitLabDataset, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { validated } from "../../support/report.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const group = (id: number, path: string) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "internal" as const, shared_with_groups: [], owners: [] });

/**
 * acme with `projects` projects, each shared with its own outside group (partner-N): no audit event
 * records any of these shares, so attributing one reads all of its group's 30-day windows.
 */
function world(projects: number): GitLabDataset {
  const partners = Array.from({ length: projects }, (_, i) => group(100 + i, `partner-${i}`));
  return {
    groups: [group(10, "acme"), ...partners],
    users: [],
    projects: partners.map((p, i) => ({
      id: 1000 + i, name: `app-${i}`, path: `app-${i}`, path_with_namespace: `acme/app-${i}`, namespace_id: 10, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
      shared_with_groups: [{ group_id: p.id, group_name: p.name, group_full_path: p.full_path, group_access_level: 30, expires_at: null }],
    })),
  };
}

const POLICY = (maxRemovals: number) => `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
  guard: { maxRemovals: ${maxRemovals}, unmatchedRules: warn }
`;

async function run(maxRemovals: number, apply = false) {
  sim.resetCounters();
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, maxRetries: 2 } });
  return validated(enforce({ gitlab, policy: parsePolicy(POLICY(maxRemovals), "test.yaml"), apply }));
}

const auditRequests = () => Object.entries(sim.counters.byRoute).filter(([route]) => route.includes("audit_events")).reduce((n, [, c]) => n + c, 0);

describe("enforce: attribution's cost", () => {
  it("a bad policy whose plan the guard refuses attributes nothing: no audit-event request at all", async () => {
    sim = await startGitLabSim({ dataset: world(60) });
    const report = await run(10, true);
    expect(report.summary).toMatchObject({ guard: "tripped", strays: 60, removed: 0 });
    expect(auditRequests()).toBe(0);
    expect(report.stats.auditRequests).toBe(0);
    expect(report.stats.attribution).toBeUndefined();
    expect(report.actions.every((a) => a.addedBy === undefined && a.attribution === undefined)).toBe(true);
  });

  it("attribution that would take more than its budget stops asking there, the groups begun first read to the end before any other is begun, and the report says so", async () => {
    // 60 groups with three empty 30-day windows each: 180 pages wanted, far over the budget of a run this small.
    sim = await startGitLabSim({ dataset: world(60) });
    const report = await run(100);
    const budget = attributionBudget({ projects: 60, groups: 1, removals: 60 });
    expect(budget).toBe(MIN_ATTRIBUTION_BUDGET);
    // Three pages a group, each group begun with its three first pages set aside: 33 groups are read, the rest not.
    const read = Math.floor(budget / 3);
    expect(auditRequests()).toBe(read * 3);
    expect(report.stats.attribution).toEqual({ requests: read * 3, budget, stoppedAtBudget: true });
    // Begun as the examination found their strays (acme's detail lists its projects newest first, as GitLab does), and finished after the guard.
    const byId = report.actions.toSorted((a, b) => (a.kind === "project" && b.kind === "project" ? b.projectId - a.projectId : 0));
    expect(byId.map((a) => a.attribution ?? "unattributed")).toEqual([...Array(read).fill("not recorded"), ...Array(60 - read).fill("unattributed")]);
    expect(report.warnings).toContain(`attribution stopped at its budget of ${budget} audit-event pages (${read * 3} requests sent): ${60 - read} removals are not attributed`);
    expect(report.summary.complete).toBe(true);
  });

  it("an audit-event endpoint answering 500 forever: the run completes, removes, and warns; the retries count in the budget", async () => {
    sim = await startGitLabSim({ dataset: world(5) });
    sim.addFaults({ kind: "status", status: 500, route: "GET /audit_events", times: 100_000 }, { kind: "status", status: 500, route: "GET /groups/:id/audit_events", times: 100_000 });
    const report = await run(100, true);
    expect(report.summary).toMatchObject({ strays: 5, removed: 5, failed: 0, complete: true });
    expect(exitCode(report)).toBe(0);
    expect(report.actions.every((a) => a.attribution === "not visible")).toBe(true);
    expect(report.warnings.join("\n")).toMatch(/attribution: the audit events of 5 groups could not be read/);
    expect(auditRequests()).toBeLessThanOrEqual(report.stats.attribution!.budget + 3);
  });
});
