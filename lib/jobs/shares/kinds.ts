/**
 * Per kind of share, the I/O on one subject: read it as it is now, remove a share, create one again.
 * Removal (remove.ts) and restore (restore/) go through this table; the examination, which lists
 * subjects rather than reading them one by one, only borrows the adapters from GitLab's entities.
 */
import { HttpError, sharesAnswer, type GitLabClient, type GroupDetail, type NewShare, type Project, type ShareOutcome, type UnshareOutcome } from "../../gitlab/index.ts";
import type { ShareKindName, Subject } from "./plan.ts";

export interface ShareOps {
  /** Reads one subject as it is now; undefined when it is gone or out of the token's sight. */
  read(gitlab: GitLabClient, id: number, signal?: AbortSignal): Promise<Subject | undefined>;
  remove(gitlab: GitLabClient, subjectId: number, groupId: number, signal?: AbortSignal): Promise<UnshareOutcome>;
  /** Re-creates a share (restore); never repeated by lib/http once it may have arrived. */
  create(gitlab: GitLabClient, subjectId: number, share: NewShare, signal?: AbortSignal): Promise<ShareOutcome>;
  /**
   * Set for a kind whose removal GitLab may answer with success without removing: the subject is read
   * again after its removals, and a share still there fails with this message.
   */
  kept?(subjectPath: string): string;
}

export const SHARE_OPS: Record<ShareKindName, ShareOps> = {
  project: {
    read: async (gitlab, id, signal) => {
      const project = await unlessNotFound(gitlab.getProject(id, signal));
      return project && projectSubject(project);
    },
    remove: (gitlab, id, groupId, signal) => gitlab.unshareProject(id, groupId, signal),
    create: (gitlab, id, share, signal) => gitlab.shareProject(id, share, signal),
  },
  group: {
    read: async (gitlab, id, signal) => {
      const group = await readGroup(gitlab, id, signal);
      return group && groupSubject(group);
    },
    remove: (gitlab, id, groupId, signal) => gitlab.unshareGroup(id, groupId, signal),
    create: (gitlab, id, share, signal) => gitlab.shareGroup(id, share, signal),
    // GitLab answers 204 without removing anything when the token lacks Owner on the sharing group.
    kept: (path) => `GitLab answered 204 but kept the share: the token needs Owner on ${path}, or administrator`,
  },
};

export function projectSubject(project: Project): Subject {
  return { id: project.id, path: project.path_with_namespace, shares: sharesAnswer(project.shared_with_groups, `project ${project.path_with_namespace}`) };
}

export function groupSubject(group: GroupDetail): Subject {
  return { id: group.id, path: group.full_path, shares: sharesAnswer(group.shared_with_groups, `group ${group.full_path}`) };
}

/** One group's detail (by id or full path); undefined when it is gone or out of the token's sight. */
export function readGroup(gitlab: GitLabClient, group: number | string, signal?: AbortSignal): Promise<GroupDetail | undefined> {
  return unlessNotFound(gitlab.getGroup(group, signal));
}

/**
 * GitLab's 404 for a group or project (deleted, or no longer visible to the token) reads as undefined. A
 * 404 in other words (a proxy's bare "Not Found", an upstream misrouted) proves nothing gone: it is an
 * error, or the group or project would be passed over as having nothing to govern.
 */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (goneByGitLab(err)) return undefined;
    throw err;
  }
}

/** GitLab's own 404 for a group or project ("404 Group Not Found", "404 Project Not Found"), not a proxy's bare one. */
export function goneByGitLab(err: unknown): boolean {
  return err instanceof HttpError && err.status === 404 && /\b(group|project) not found/i.test(err.serviceMessage);
}
