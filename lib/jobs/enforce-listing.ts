/**
 * How enforce lists the projects in scope: each scope group once (or the whole instance), as one
 * listing or, when large, as partitions listed side by side, each following its own links.
 */
import pMap from "p-map";
import { HttpError, type GitLabClient, type Project } from "../gitlab/index.ts";
import type { Listing, Page } from "../paging/index.ts";
import { scopeGroups, type Policy } from "../policy/index.ts";
import type { Examination, Subject } from "./enforce-kinds.ts";

/** Above this many projects, a scope group (or the instance) is listed in partitions that run in parallel. */
export const PARTITION_ABOVE = 2_000;

export type Pages = AsyncIterable<Page<Project>>;

export class ScopeError extends Error {
  override name = "ScopeError";
}

/** An outermost scope group: its id, and its full path as GitLab spells it. */
export interface ScopeRoot {
  id: number;
  path: string;
}

export function projectSubject(project: Project): Subject {
  return { id: project.id, path: project.path_with_namespace, shares: project.shared_with_groups ?? [] };
}

/** One project as it is now; undefined when it is gone or out of the token's sight. */
export async function readProjectSubject(gitlab: GitLabClient, id: number, signal?: AbortSignal): Promise<Subject | undefined> {
  const project = await unlessNotFound(gitlab.getProject(id, signal));
  return project && projectSubject(project);
}

/** A 404 (deleted, or no longer visible to the token) reads as undefined. */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}

/** Every project in scope, judged a page at a time as the listings go. */
export async function examineProjects(x: Examination, judge: (subjects: Subject[]) => void): Promise<void> {
  const { gitlab, concurrency, signal } = x;
  const judgePage = (items: Project[]) => judge(items.map(projectSubject));
  const sources = await pMap(
    x.roots ?? [undefined],
    (root) => (root === undefined ? instanceRanges(gitlab, concurrency * 2, signal) : startGroupListing(gitlab, root.id, judgePage, { seesAllGroups: x.seesAllGroups, signal })),
    { concurrency },
  );
  await pMap(sources.flat(), async (pages) => {
    for await (const page of pages) judgePage(page.items);
  }, { concurrency });
}

/**
 * Starts listing one scope group and judges the first page. Its x-total decides the rest: a small
 * group's listing simply goes on; a large one (or one above 10,000, which GitLab will not count) is
 * split into its own projects and each direct subgroup's tree, every partition following its own
 * links. /groups/:id/projects has no id filter to split on, so subgroups are the seams; each costs at
 * most one partial page, and the first page's projects, listed again by their partition, are not
 * judged twice. Only a token that sees every group may split: GitLab lists to others only the
 * subgroups they are members of, and a partition missed would be projects never judged.
 */
export async function startGroupListing(
  gitlab: GitLabClient,
  group: number,
  judgePage: (items: Project[]) => void,
  opts: { seesAllGroups: boolean; signal: AbortSignal },
): Promise<Pages[]> {
  const { signal } = opts;
  const whole = gitlab.listGroupProjects(group, { signal }).pages();
  const first = await whole.next();
  if (first.done) return [];
  judgePage(first.value.items);
  const { meta, checkpoint } = first.value;
  if (checkpoint.next === null || isSmall(meta.total) || !opts.seesAllGroups) return [{ [Symbol.asyncIterator]: () => whole }];
  await whole.return(undefined);
  const judged = new Set(first.value.items.map((p) => p.id));
  const unjudged = async function* (listing: Listing<Project>): AsyncGenerator<Page<Project>> {
    for await (const page of listing.pages()) yield { ...page, items: page.items.filter((p) => !judged.has(p.id)) };
  };
  const children = await gitlab.listSubgroups(group, { signal }).collect();
  return [gitlab.listGroupProjects(group, { signal }, false), ...children.map((child) => gitlab.listGroupProjects(child.id, { signal }))].map(unjudged);
}

/**
 * The whole instance, by keyset on id: one listing for a small instance; otherwise `ranges` id ranges
 * listed side by side (id_after/id_before), each following its own links, the last one open-ended so a
 * project created meanwhile is still seen. One tiny request finds the newest id and the count.
 */
export async function instanceRanges(gitlab: GitLabClient, ranges: number, signal: AbortSignal): Promise<Pages[]> {
  const pages = (idAfter?: number, idBefore?: number) => gitlab.listProjects({ idAfter, idBefore, list: { signal } }).pages();
  const newest = await gitlab.newestProject(signal);
  if (!newest || isSmall(newest.total)) return [pages()];
  const step = Math.ceil(newest.id / ranges);
  return Array.from({ length: ranges }, (_, i) => pages(i === 0 ? undefined : i * step, i === ranges - 1 ? undefined : (i + 1) * step + 1));
}

function isSmall(total: number | "unknown" | undefined): boolean {
  return typeof total === "number" && total <= PARTITION_ABOVE;
}

/**
 * The outermost scope groups (a group's namespace id is its group id), or undefined for the whole
 * instance when the policy names no scope. Groups inside another scope group are left out so nothing
 * is listed twice.
 */
export async function scopeRoots(gitlab: GitLabClient, policy: Policy, signal?: AbortSignal): Promise<ScopeRoot[] | undefined> {
  const groups = scopeGroups(policy);
  if (groups === undefined) return undefined;
  // GitLab paths are case-insensitive: acme and ACME are one group, and acme/mobile is inside acme.
  const paths = [...new Map(groups.map((g) => [g.toLowerCase(), g])).values()];
  const outermost = paths.filter((g) => !paths.some((other) => g.toLowerCase().startsWith(`${other.toLowerCase()}/`)));
  const roots = await Promise.all(
    outermost.map(async (path) => {
      const namespace = await gitlab.getNamespace(path, signal).catch((err: unknown) => {
        throw err instanceof HttpError && err.status === 404
          ? new ScopeError(`gitlab.scope.groups: group "${path}" was not found, or the token cannot see it`)
          : err;
      });
      if (namespace.kind !== "group") throw new ScopeError(`gitlab.scope.groups: "${path}" is a user namespace, not a group`);
      return { id: namespace.id, path: namespace.full_path };
    }),
  );
  // Two paths can still name one group (an old path GitLab redirects): list it once.
  return [...new Map(roots.map((root) => [root.id, root])).values()];
}
