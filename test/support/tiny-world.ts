/** Hand-made GitLab trees of a few groups and projects, for a test that needs one exact world. */
import type { SimGroup, SimProject, SimShare } from "../../sim/gitlab/index.ts";

export function simGroup(id: number, fullPath: string, parentId: number | null, visibility: SimGroup["visibility"] = "private"): SimGroup {
  const path = fullPath.split("/").pop()!;
  return { id, name: path, path, full_path: fullPath, parent_id: parentId, visibility, shared_with_groups: [] };
}

export function simProject(id: number, namespace: SimGroup, path: string, shares: SimShare[]): SimProject {
  return {
    id, name: path, path, path_with_namespace: `${namespace.full_path}/${path}`, namespace_id: namespace.id, shared_with_groups: shares,
    default_branch: "main", branches: ["main"], archived: false, previous_paths: [], visibility: "internal",
  };
}

/** A share with `group` at this access level, not expiring. */
export const shareWith = (group: SimGroup, level: number): SimShare => ({ group_id: group.id, group_name: group.name, group_full_path: group.full_path, group_access_level: level, expires_at: null });
