/**
 * How enforce examines group-to-group shares. Only a group's detail carries its `shared_with_groups`
 * (no listing does), so each group in scope costs one GET /groups/:id — the endpoint GitLab.com limits
 * to 400 a minute — which, for a token that sees every group, also carries the group's own projects
 * (enforce-group-projects.ts); otherwise it is asked for without them. The groups are streamed from
 * their listing into details read side by side, never held as a whole list. Every request takes a
 * slot of the examination's pool (Examination.slots), shared with the project listings: the two kinds
 * together keep `concurrency` requests in flight, whichever has more left to do; the details wait
 * behind the listings' pages, since a detail can be read at any moment and a listing's next page cannot.
 */
import pMap from "p-map";
import type { GitLabClient, GroupDetail } from "../gitlab/index.ts";
import type { Checkpoint } from "../paging/index.ts";
import { accessLevelName, inScope } from "../policy/index.ts";
import type { Examination, Subject } from "./enforce-kinds.ts";
import { inSlot, PAUSED, PRIORITY } from "./enforce-slots.ts";
import { awaitedLater } from "./awaited-later.ts";
import { GroupProjects, type DetailProjects } from "./enforce-group-projects.ts";
import { projectsWithDetails, unlessNotFound, type ScopeRoot } from "./enforce-listing.ts";

export function groupSubject(group: GroupDetail): Subject {
  return { id: group.id, path: group.full_path, shares: group.shared_with_groups ?? [] };
}

/** One group as it is now; undefined when it is gone or out of the token's sight. */
export async function readGroupSubject(gitlab: GitLabClient, id: number, signal?: AbortSignal): Promise<Subject | undefined> {
  const group = await readGroup(gitlab, id, signal);
  return group && groupSubject(group);
}

/**
 * Where the group examination stands, as data (JSON), so that a run cut into steps resumes it: group
 * ids listed and not yet read, and the listing the rest come from (a scope group's descendants, or
 * every group the token sees) with its position; or the scope groups' ancestors, still to be read.
 */
export type GroupWork = GroupReads | { kind: "group"; ancestors: readonly ScopeRoot[] };

export interface GroupReads {
  kind: "group";
  pending: number[];
  list?: { descendantsOf: number } | "all";
  from?: Checkpoint;
  /** Set where the details carry the groups' own projects too (enforce-group-projects.ts). */
  projects?: DetailProjects;
}

/**
 * Each scope group and all its descendants, and their ancestors; without a scope, every group the
 * token sees. A token that sees every group reads the projects with the details.
 */
export function beginGroups(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): GroupWork[] {
  if (roots === undefined) return [{ kind: "group", pending: [], list: "all" }];
  const withProjects = projectsWithDetails(roots, seesAllGroups);
  const reads = roots.map((root): GroupWork => ({ kind: "group", pending: [root.id], list: { descendantsOf: root.id }, ...(withProjects ? { projects: { root } } : {}) }));
  return [...reads, { kind: "group", ancestors: roots }];
}

/**
 * Groups read and judged one detail at a time, streamed from their listing. When the examination
 * pauses (`x.pause`), no request is started any more and the ids not yet read are left as work.
 */
export async function examineGroups(x: Examination, work: GroupWork, judge: (subjects: Subject[]) => void, leave: (work: GroupWork) => void): Promise<void> {
  if ("ancestors" in work) {
    if (x.pause?.aborted) return leave(work);
    return void x.warnings.push(...(await ancestorShares(x, work.ancestors)));
  }
  const left = { ...work, pending: [...work.pending] };
  const unread: number[] = [];
  // The scope group is read first: where it is still pending, its whole tree is read from here.
  const projects = work.projects && new GroupProjects(x, work.projects, work.pending[0] === work.projects.root.id && work.from === undefined);
  await pMap(
    groupIds(x, left),
    async (id) => {
      const group = await inSlot(x, () => (projects ? projects.read(id) : readGroup(x.gitlab, id, x.signal)), PRIORITY.detail);
      if (group === PAUSED) return void unread.push(id);
      // A group deleted since it was listed has no shares left to govern.
      if (group) judge([groupSubject(group)]);
      projects?.judge(group);
    },
    { concurrency: x.concurrency },
  );
  if (unread.length || left.pending.length || left.list !== undefined) {
    leave({ ...left, pending: [...unread, ...left.pending], ...(projects ? { projects: projects.state() } : {}) });
  }
  await projects?.finish(unread.length === 0 && left.pending.length === 0 && left.list === undefined);
}

/**
 * The ids of `work`, pending first, then its listing's pages; `work` keeps where it stands. Each page
 * is asked for as soon as the one before arrives, not once its ids are used up: the pages are a chain,
 * and the detail reads they feed are what fills idle slots, so all of them should be known early.
 */
async function* groupIds(x: Examination, work: GroupReads): AsyncGenerator<number> {
  while (work.pending.length) yield work.pending.shift()!;
  if (work.list === undefined) return;
  const list = { signal: x.signal, from: work.from };
  const pages = (work.list === "all" ? x.gitlab.listGroups({ all_available: true }, list) : x.gitlab.listDescendantGroups(work.list.descendantsOf, list)).pages();
  // Asked for while the ids before it are still being handed out.
  const ask = () => awaitedLater(inSlot(x, () => pages.next(), PRIORITY.groupPages));
  try {
    for (let next = ask(); ; ) {
      const page = await next;
      if (page === PAUSED) return;
      if (page.done) return void delete work.list;
      work.from = page.value.checkpoint;
      work.pending.push(...page.value.items.map((g) => g.id));
      const last = page.value.checkpoint.next === null;
      if (last) delete work.list;
      else next = ask();
      while (work.pending.length) yield work.pending.shift()!;
      if (last) return;
    }
  } finally {
    await pages.return(undefined);
  }
}

/**
 * A share made by an ancestor of a scope group reaches into the scope (a subgroup inherits its
 * parent's shares) but is outside it, so it is not governed: each is reported as a warning. The
 * ancestors are few — the parent chain of each scope group — and each costs one detail.
 */
async function ancestorShares(x: Examination, roots: readonly ScopeRoot[]): Promise<string[]> {
  const ancestors = new Map<string, { path: string; scope: string }>();
  for (const root of roots) {
    const segments = root.path.split("/");
    for (let n = 1; n < segments.length; n++) {
      const path = segments.slice(0, n).join("/");
      if (!ancestors.has(path.toLowerCase()) && !inScope(x.policy, path)) ancestors.set(path.toLowerCase(), { path, scope: root.path });
    }
  }
  const warnings = await pMap(
    ancestors.values(),
    async ({ path, scope }) => {
      const group = await x.slots(() => readGroup(x.gitlab, path, x.signal), PRIORITY.detail);
      if (!group) return [`${path}, above scope group ${scope}, could not be read (not found, or the token cannot see it): the shares it makes reach into the scope and are unknown`];
      return group.shared_with_groups.map(
        (share) =>
          `${group.full_path}, above scope group ${scope} and outside the scope, is shared with ${share.group_full_path} as ${accessLevelName(share.group_access_level)}` +
          `${share.expires_at ? ` until ${share.expires_at}` : ""}: that share reaches into ${scope} and is not governed`,
      );
    },
    { concurrency: x.concurrency },
  );
  return warnings.flat();
}

function readGroup(gitlab: GitLabClient, group: number | string, signal?: AbortSignal): Promise<GroupDetail | undefined> {
  return unlessNotFound(gitlab.getGroup(group, signal));
}
