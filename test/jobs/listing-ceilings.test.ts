/**
 * A GitLab (or something in front of it) listing strays without end: each kept until the report, a few
 * hundred bytes, the plan grew on to lib/paging's 100,000 pages, past the CLI's and the functions' heap,
 * and V8 ended the process with no report; so did a comparison's differences, and the access review's
 * shares, allowed ones too. The examination now stops once it has found more than MAX_PLANNED strays or
 * differences (removing nothing, whatever gitlab.guard.maxRemovals allows), the review once it has listed
 * more than MAX_LISTED shares; each says why, and the report is written.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce, exitCode, renderText } from "../../lib/jobs/index.ts";
import { MAX_PLANNED } from "../../lib/jobs/shares/plan.ts";
import { MAX_LISTED, reviewShares } from "../../lib/jobs/review/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { startGitLabSim, type GitLabDataset } from "../../sim/gitlab/index.ts";
import { afterTest } from "../support/cleanup.ts";
import { validated } from "../support/report.ts";

/** `projects` in acme, each shared with the same 101 partner groups: at 2,000, 202,000 shares, twice the most a run plans. */
function world(projects = 2_000): GitLabDataset {
  const partners = Array.from({ length: 101 }, (_, i) => ({ id: 1_000 + i, path: `partner-${i}` }));
  const group = (id: number, path: string) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "internal" as const, shared_with_groups: [] });
  return {
    groups: [group(10, "acme"), ...partners.map((p) => group(p.id, p.path))],
    users: [],
    projects: Array.from({ length: projects }, (_, i) => ({
      id: 100 + i, name: `app-${i}`, path: `app-${i}`, path_with_namespace: `acme/app-${i}`, namespace_id: 10, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
      shared_with_groups: partners.map((p) => ({ group_id: p.id, group_name: p.path, group_full_path: p.path, group_access_level: 30, expires_at: null })),
    })),
  };
}

const policyText = (allow: string) => `version: 1\ngitlab:\n  scope: { groups: [acme] }\n  attribution: { days: 0 }\n  shares: { allow: ${allow} }\n  guard: { maxRemovals: 1000000 }\n`;
const stoppedAt = (what: string) =>
  new RegExp(`^stopped while listing after \\d+ projects \\(more than 100000 ${what} found, more than one run plans: narrow gitlab\\.scope, or correct the policy's rules\\), with 1 group read: the plan is incomplete and nothing was removed$`);

async function start(projects?: number) {
  const sim = afterTest.add(await startGitLabSim({ dataset: world(projects), recordRequests: true }));
  return { sim, gitlab: new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() }) };
}

describe("a plan without end", () => {
  it(`stops examining past ${MAX_PLANNED.toLocaleString("en")} strays: nothing removed, the report written with what it found, and why`, { timeout: 60_000 }, async () => {
    const { sim, gitlab } = await start();
    const report = await validated(enforce({ gitlab, policy: parsePolicy(policyText("[]"), "warden.yaml"), apply: true }));
    expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(report.actions).toHaveLength(MAX_PLANNED);
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(report.summary.complete).toBe(false);
    // Stopped well before the end of the listing: what was in flight when it passed the ceiling, no more.
    expect(report.summary.projects).toBeLessThan(1_500);
    expect(report.warnings).toContainEqual(expect.stringMatching(stoppedAt("stray shares")));
    expect(exitCode(report)).not.toBe(0);
    // As the CLI prints it: one line a stray.
    expect(renderText(report, { color: false }).split("\n").length).toBeGreaterThan(MAX_PLANNED);
  });

  it("a comparison stops past as many differences between the policies, the strays of neither counting", { timeout: 60_000 }, async () => {
    const { gitlab } = await start();
    // The base allows nothing, the proposed policy everything: every share is one no longer removed.
    const base = parsePolicy(policyText("[]"), "base", { source: "gitlab", project: "security/policies", path: "warden.yaml", ref: "main", commitId: "c".repeat(40) });
    const report = await validated(enforce({ gitlab, policy: parsePolicy(policyText('[{ group: "partner-*" }]'), "warden.yaml"), compareWith: base }));
    expect(report.actions).toEqual([]);
    expect(report.comparison!.noLongerRemoved).toHaveLength(MAX_PLANNED);
    expect(report.summary.projects).toBeLessThan(1_500);
    expect(report.warnings).toContainEqual(expect.stringMatching(stoppedAt("differences between the policies")));
    expect(renderText(report, { color: false }).split("\n").length).toBeGreaterThan(MAX_PLANNED);
  });

  it(`the access review stops past ${MAX_LISTED.toLocaleString("en")} shares listed, allowed ones too, and writes those`, { timeout: 60_000 }, async () => {
    const { gitlab } = await start(4_000);
    const report = await validated(reviewShares({ gitlab, policy: parsePolicy(policyText('[{ group: "partner-*" }]'), "warden.yaml") }));
    expect(report.actions).toHaveLength(MAX_LISTED);
    expect(report.summary).toMatchObject({ listed: MAX_LISTED, allowed: MAX_LISTED, complete: false });
    expect(report.summary.projects).toBeLessThan(3_500);
    expect(report.warnings).toContainEqual(expect.stringMatching(/\(more than 300000 shares listed, more than one review holds: review a part of the scope with --target\)/));
  });
});
