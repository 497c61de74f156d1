/**
 * The world of the redaction-oracle tests: group `acme` (in scope) and `outside`, and one stray project
 * share for each path given, `acme/<path>` shared with `outside`. Whoever names projects picks the paths:
 * each a guess of a secret, whose report must name them all alike.
 */
import { ACCESS, type GitLabDataset, type SimProject } from "../../sim/gitlab/index.ts";

export function strayProjectsNamed(...paths: string[]): GitLabDataset {
  const group = (id: number, path: string) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "private" as const, shared_with_groups: [] });
  const project = (id: number, path: string): SimProject => ({
    id, name: path, path, path_with_namespace: `acme/${path}`, namespace_id: 1, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
    shared_with_groups: [{ group_id: 2, group_name: "outside", group_full_path: "outside", group_access_level: ACCESS.developer, expires_at: null }],
  });
  return { groups: [group(1, "acme"), group(2, "outside")], users: [], projects: paths.map((path, i) => project(10 + i, path)) };
}
