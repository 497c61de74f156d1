/**
 * A small world for the watch (lib/jobs/watch): acme (Jane owns it) with a subgroup and two projects,
 * partners (Olga's, outside the scope and not allowed), and other/tool outside the scope. Shares are
 * made over HTTP as a person makes them, so the simulator records their audit events as GitLab does.
 */
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { parsePolicy, type Policy } from "../../lib/policy/index.ts";
import type { GitLabDataset, GitLabSim } from "../../sim/gitlab/index.ts";

const group = (id: number, path: string, owners: string[], parent_id: number | null = null) =>
  ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, full_path: path, parent_id, visibility: "internal" as const, shared_with_groups: [], owners });
const project = (id: number, path: string, namespace_id: number) =>
  ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, path_with_namespace: path, namespace_id, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });

export const IDS = { acme: 10, team: 11, partners: 20, other: 40, app: 100, api: 101, tool: 200 } as const;

export function watchWorld(): GitLabDataset {
  return {
    groups: [group(10, "acme", ["jane"]), group(11, "acme/team", [], 10), group(20, "partners", ["olga"]), group(40, "other", ["olga"])],
    users: [
      { id: 5, username: "jane", name: "Jane Doe", namespace_id: 105 },
      { id: 6, username: "olga", name: "Olga Kern", namespace_id: 106 },
    ],
    projects: [project(100, "acme/app", 10), project(101, "acme/team/api", 11), project(200, "other/tool", 40)],
  };
}

/** `root` and the Lambda tests' secret (glpat-sim-admin) are administrators; Jane owns acme, Olga partners and other. */
export const WATCH_TOKENS = { root: { admin: true }, "glpat-sim-admin": { admin: true }, jane: { admin: false, username: "jane" }, olga: { admin: false, username: "olga" } };

export const watchPolicyText = ({ maxRemovals = 100, maxRequestsPerHour = 3600 } = {}) => `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
  guard: { maxRemovals: ${maxRemovals}, unmatchedRules: warn }
  watch: { maxRequestsPerHour: ${maxRequestsPerHour} }
`;

export const watchPolicy = (opts?: Parameters<typeof watchPolicyText>[0]): Policy => parsePolicy(watchPolicyText(opts), "watch.yaml");

export function client(sim: GitLabSim, token: string): GitLabClient {
  return new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
}

/** `POST path` with `group_id` and `group_access`, as `token`'s user: a project's (/projects/:id/share) or a group's share (/groups/:id/share). */
export async function share(sim: GitLabSim, token: string, path: string, groupId: number, access = 30): Promise<void> {
  const res = await fetch(`${sim.url}/api/v4${path}`, {
    method: "POST",
    headers: { "private-token": token, "content-type": "application/json" },
    body: JSON.stringify({ group_id: groupId, group_access: access }),
  });
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
}

/** Every share in the simulator: "p100:20" (project 100 with group 20), "g10:20" (group 10 with 20). */
export function allShares(sim: GitLabSim): string[] {
  const { projects, groups } = sim.dataset;
  return [...projects.flatMap((p) => p.shared_with_groups.map((s) => `p${p.id}:${s.group_id}`)), ...groups.flatMap((g) => g.shared_with_groups.map((s) => `g${g.id}:${s.group_id}`))].sort();
}

/** A share event as whoever holds the streaming token writes it (streamDelivery sends it): any id, now, naming the project. */
export const forgedShareEvent = (id: number, projectId: number) => ({
  id,
  entity_id: IDS.partners,
  entity_type: "Group",
  event_type: "project_group_link_created",
  created_at: new Date(Date.now() - 1_000).toISOString(),
  details: { target_id: projectId, target_type: "Project" },
});
