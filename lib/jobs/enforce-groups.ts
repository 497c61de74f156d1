/**
 * How enforce examines group-to-group shares. Only a group's detail carries its `shared_with_groups`
 * (no listing does), so each group in scope costs one GET /groups/:id?with_projects=false — the
 * endpoint GitLab.com limits to 400 a minute. The groups are streamed from their listing into details
 * read side by side, never held as a whole list. Every request takes a slot of the examination's
 * pool (Examination.slots), shared with the project listing: the two kinds together keep `concurrency`
 * requests in flight, whichever has more left to do.
 */
import pMap from "p-map";
import type { GitLabClient, Group, GroupDetail } from "../gitlab/index.ts";
import type { Listing } from "../paging/index.ts";
import { accessLevelName, inScope } from "../policy/index.ts";
import type { Examination, Subject } from "./enforce-kinds.ts";
import { unlessNotFound, type ScopeRoot } from "./enforce-listing.ts";

export function groupSubject(group: GroupDetail): Subject {
  return { id: group.id, path: group.full_path, shares: group.shared_with_groups ?? [] };
}

/** One group as it is now; undefined when it is gone or out of the token's sight. */
export async function readGroupSubject(gitlab: GitLabClient, id: number, signal?: AbortSignal): Promise<Subject | undefined> {
  const group = await readGroup(gitlab, id, signal);
  return group && groupSubject(group);
}

/** Every group in scope, read and judged one detail at a time; then the scope groups' ancestors, warned about. */
export async function examineGroups(x: Examination, judge: (subjects: Subject[]) => void): Promise<void> {
  const { slots } = x;
  await pMap(
    groupIds(x),
    async (id) => {
      const group = await slots(() => readGroup(x.gitlab, id, x.signal));
      // A group deleted since it was listed has no shares left to govern.
      if (group) judge([groupSubject(group)]);
    },
    { concurrency: x.concurrency },
  );
  if (x.roots) x.warnings.push(...(await ancestorShares(x, x.roots)));
}

/** Each scope group and all its descendants; without a scope, every group the token sees. */
async function* groupIds(x: Examination): AsyncGenerator<number> {
  const { gitlab, roots, signal } = x;
  const { slots } = x;
  const ids = async function* (listing: Listing<Group>) {
    const pages = listing.pages();
    for (let page = await slots(() => pages.next()); !page.done; page = await slots(() => pages.next())) yield* page.value.items.map((g) => g.id);
  };
  if (roots === undefined) return yield* ids(gitlab.listGroups({ all_available: true }, { signal }));
  for (const root of roots) {
    yield root.id;
    yield* ids(gitlab.listDescendantGroups(root.id, { signal }));
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
      const group = await x.slots(() => readGroup(x.gitlab, path, x.signal));
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
