/** The notices row's part of the simulated organisation: where its policy keeps notices, and what the bench counts there. */
import type { GitLabDataset } from "../../sim/gitlab/index.ts";

/** A project of a group of its own, outside acme (the scope). */
export const NOTICES_PROJECT = "security/access-notices";

/** The notices project's issues: open ones, and how many distinct shares their markers name; and how often its closed ones were listed. */
export interface NoticeCount {
  open: number;
  shares: number;
  /** `GET /projects/:id/issues?state=closed` answered so far: the pages of the notices closed recently (lib/jobs/notices/closed.ts). */
  closedPages: number;
}

/** A notice's marker, its description's first line (lib/jobs/notices/marker.ts): one per share, so two alike are a duplicate. */
export const markerLine = (description: string | null | undefined): string => (description ?? "").split("\n", 1)[0]!;

/** Adds NOTICES_PROJECT (its group outside the scope) to the generated organisation; returns its id. */
export function addNoticesProject(dataset: GitLabDataset): number {
  const [groupPath, projectPath] = NOTICES_PROJECT.split("/") as [string, string];
  // Not Math.max(...ids): a million arguments overflow the stack.
  const highest = (ids: number[]) => ids.reduce((a, b) => Math.max(a, b), 0);
  const groupId = highest([...dataset.groups.map((g) => g.id), ...dataset.users.map((u) => u.namespace_id)]) + 1;
  const projectId = highest(dataset.projects.map((p) => p.id)) + 1;
  dataset.groups.push({ id: groupId, name: groupPath, path: groupPath, full_path: groupPath, parent_id: null, visibility: "private", shared_with_groups: [] });
  dataset.projects.push({ id: projectId, name: projectPath, path: projectPath, path_with_namespace: NOTICES_PROJECT, namespace_id: groupId, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
  return projectId;
}
