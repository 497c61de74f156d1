/** The restore job's tests' world: an organisation with shares of both kinds on the GitLab simulator, the job run on it, and what a restore must bring back. */
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { restore, type RestoreOptions } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import type { SimGroup, SimGroupShare } from "../../sim/gitlab/dataset.ts";
import { standardPolicy } from "./policies.ts";
import { validated } from "./report.ts";
import { afterTest } from "./cleanup.ts";

/** The simulator of the test running (a live binding: setup() replaces it), closed after each test (test/support/cleanup.ts). */
export let sim: GitLabSim;

export const TODAY = new Date().toISOString().slice(0, 10);
export const dayFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export async function setup(opts: GitLabSimOptions = {}) {
  const { dataset } = generateOrganisation({ projects: 200, seed: 5, groupShares: true });
  sim = afterTest.add(await startGitLabSim({ dataset, ...opts }));
}

export const client = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
/** Every share allowed, everywhere: for the tests of restore's mechanics, which the policy check does not concern. */
export const allowAll = (maxRemovals = 1000) => `version: 1\ngitlab:\n  shares:\n    allow:\n      - group: "**"\n  guard:\n    maxRemovals: ${maxRemovals}\n`;
export const policy = (maxRemovals?: number) => parsePolicy(allowAll(maxRemovals), "test.yaml");
export const standard = () => parsePolicy(standardPolicy(), "standard.yaml");

export function run(opts: Partial<RestoreOptions> & Pick<RestoreOptions, "input">) {
  return validated(restore({ gitlab: client(), policy: policy(), ...opts }));
}

/** Every share in the simulator, of both kinds, with what a restore must bring back. */
export function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  const add = (key: string, s: { group_access_level: number; expires_at: string | null; member_role_id?: number | null }) =>
    out.set(key, JSON.stringify([s.group_access_level, s.expires_at, s.member_role_id ?? null]));
  for (const p of sim.dataset.projects) for (const s of p.shared_with_groups) add(`project:${p.id}:${s.group_id}`, s);
  for (const g of sim.dataset.groups) for (const s of g.shared_with_groups) add(`group:${g.id}:${s.group_id}`, s);
  return out;
}

export const posts = () => (sim.counters.byRoute["POST /projects/:id/share"] ?? 0) + (sim.counters.byRoute["POST /groups/:id/share"] ?? 0);
export const onlyGets = () => Object.keys(sim.counters.byRoute).every((route) => route.startsWith("GET "));

/**
 * Removes a few shares of each kind from the simulator by hand (levels, expiry and a custom role
 * set) and returns the report of an applying enforce run that would have removed them, as JSON text.
 */
export function removeByHand(count: { projects: number; groups: number }, status: (i: number) => string = () => "done"): string {
  const actions: object[] = [];
  const projects = sim.dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length).slice(0, count.projects);
  for (const p of projects) {
    const s = p.shared_with_groups.shift()!;
    actions.push({ type: "remove-share", kind: "project", projectId: p.id, project: p.path_with_namespace, groupId: s.group_id, group: s.group_full_path, accessLevel: s.group_access_level, expiresAt: s.expires_at, reason: "stray", status: status(actions.length) });
  }
  // Shares with a custom role first, so that even a few removals include one.
  const current = (s: SimGroupShare) => s.expires_at === null || s.expires_at >= TODAY;
  const withRole = (g: SimGroup) => g.shared_with_groups.some((s) => current(s) && s.member_role_id);
  const groups = sim.dataset.groups.filter((g) => g.shared_with_groups.some(current)).sort((a, b) => Number(withRole(b)) - Number(withRole(a))).slice(0, count.groups);
  for (const g of groups) {
    const i = g.shared_with_groups.findIndex((s) => current(s) && (s.member_role_id || !withRole(g)));
    const [s] = g.shared_with_groups.splice(i, 1);
    actions.push({ type: "remove-group-share", kind: "group", sharedGroupId: g.id, sharedGroup: g.full_path, groupId: s!.group_id, group: s!.group_full_path, accessLevel: s!.group_access_level, expiresAt: s!.expires_at, ...(s!.member_role_id ? { memberRoleId: s!.member_role_id } : {}), reason: "stray", status: status(actions.length) });
  }
  return JSON.stringify({ job: "enforce", dryRun: false, summary: {}, actions, stats: {}, warnings: [] });
}

/** A group outside acme the project is not shared with. */
export function unsharedOutsideGroup(project: { shared_with_groups: { group_id: number }[] }) {
  return sim.dataset.groups.find((g) => !g.full_path.startsWith("acme") && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
}
