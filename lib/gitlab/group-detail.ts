/** Checking that an answer is a group's detail before anything reads it. */
import type { GroupDetail } from "./types.ts";

/**
 * A group's detail as GitLab sends it. Anything else (JSON without its fields) is an error naming the
 * group: read as a group without shares or projects, it would pass for one that has none.
 */
export function groupDetail(data: unknown, group: string | number): GroupDetail {
  const d = data as Partial<GroupDetail> | null;
  const whole = typeof d === "object" && d !== null && typeof d.id === "number" && typeof d.full_path === "string" && Array.isArray(d.shared_with_groups);
  if (!whole || (d.projects !== undefined && !Array.isArray(d.projects))) {
    throw new Error(`GET /groups/${group} answered with JSON that is not a group's detail (id, full_path and shared_with_groups expected)`);
  }
  return d as GroupDetail;
}
