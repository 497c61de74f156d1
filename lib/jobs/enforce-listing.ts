/**
 * How enforce lists the projects in scope: each scope group as a tree of partitions, each following
 * its own links, split where a branch is large; or the whole instance, in id ranges by keyset.
 */
import pMap from "p-map";
import type { LimitFunction } from "p-limit";
import { HttpError, type GitLabClient, type Project } from "../gitlab/index.ts";
import type { Page } from "../paging/index.ts";
import { scopeGroups, type Policy } from "../policy/index.ts";
import type { Examination, Subject } from "./enforce-kinds.ts";

/** Above this many projects, the instance (without a scope) is listed in id ranges that run in parallel. */
export const PARTITION_ABOVE = 2_000;

/** GitLab's largest page. */
const PER_PAGE = 100;
/** A listing of this many pages or fewer is never split: a split costs two requests or more. */
const SPLIT_ABOVE_PAGES = 10;
/** Above this many pages, a listing that is not split is read from both ends (one request more at most). */
const BOTH_ENDS_ABOVE_PAGES = 4;

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

/**
 * Every project in scope, judged a page at a time as the pages arrive: each scope group as a tree of
 * partitions (`subtree`), the instance without a scope as id ranges by keyset. Every request takes a
 * slot of the examination's pool, which the group shares' reads use too.
 */
export async function examineProjects(x: Examination, judge: (subjects: Subject[]) => void): Promise<void> {
  const { slots } = x;
  const judgePage = (items: Project[]) => judge(items.map(projectSubject));
  if (x.roots === undefined) {
    const ranges = await slots(() => instanceRanges(x.gitlab, x.concurrency * 2, x.signal));
    await pMap(ranges, (range) => follow(range[Symbol.asyncIterator](), judgePage, slots), { concurrency: x.concurrency });
    return;
  }
  await Promise.all(x.roots.map((root) => subtree({ x, slots, judgePage }, root.id, new Set(), undefined)));
}

interface Partitioning {
  x: Examination;
  slots: LimitFunction;
  judgePage: (items: Project[]) => void;
}

/**
 * One group's projects, its subgroups' included. GitLab's contract is to follow the `Link` of each
 * answer and never build a page's address, so the pages of one listing come one after another:
 * parallelism comes from partitions. The listing starts as one (a small tree costs no extra request);
 * when its first page shows it is large — more pages than an even share of the slots (and than 10;
 * twice that for a branch already split off), or no total at all (above 10,000) — it is split into the group's own projects and each direct subgroup's tree, and
 * each of those is judged the same way, so a heavy branch is split as deep as its shape allows while
 * light ones stay whole. A split reads its first page again (those projects are not judged twice) and
 * ends each partition on a partial page, so a tree with more child groups than pages (thousands of
 * tiny groups) is listed whole instead. A token that cannot see every group never splits: GitLab
 * lists to it only the subgroups it is a member of, and a partition missed is projects never judged.
 *
 * A project moved during the listing from a partition not yet listed into one already listed is
 * missed by this run (the next finds it); one moved the other way is judged twice, but its strays are
 * planned once (enforce de-duplicates them by share).
 */
async function subtree(p: Partitioning, group: number, judged: ReadonlySet<number>, share: number | undefined): Promise<void> {
  const { x, slots } = p;
  const unjudged = (items: Project[]) => p.judgePage(judged.size ? items.filter((project) => !judged.has(project.id)) : items);
  const pages = x.gitlab.listGroupProjects(group, { signal: x.signal }).pages();
  const first = await opening(pages, unjudged, slots);
  if (!first) return;
  // The root's first page sets the share, its pages spread evenly over the slots; a branch below it
  // splits only when it holds clearly more (twice that), since every split costs requests.
  const even = share ?? Math.max(SPLIT_ABOVE_PAGES, Math.ceil((Number.isFinite(first.count) ? first.count : 10_000 / PER_PAGE) / x.concurrency));
  const large = first.count > (share === undefined ? even : 2 * even);
  const children = large && x.seesAllGroups ? await childIds(p, group) : [];
  if (children.length === 0 || children.length >= first.count) return rest(p, pages, first, unjudged, () => x.gitlab.listGroupProjects(group, { signal: x.signal }, true, "desc").pages());
  await pages.return(undefined);
  const seen = new Set([...judged, ...first.ids]);
  const seenFilter = (items: Project[]) => p.judgePage(items.filter((project) => !seen.has(project.id)));
  const own = (sort: "asc" | "desc") => x.gitlab.listGroupProjects(group, { signal: x.signal }, false, sort).pages();
  const ownFirst = own("asc");
  const ownOpening = await opening(ownFirst, seenFilter, slots);
  await Promise.all([ownOpening && rest(p, ownFirst, ownOpening, seenFilter, () => own("desc")), ...children.map((child) => subtree(p, child, seen, even))]);
}

/**
 * The rest of a listing that is not split, after its first page. Above a few pages, it is read from
 * both ends at once: this listing goes on up the ids while a second one — the same filters, sorted by
 * id descending — comes down, each following its own links, until they meet. The pages of one listing
 * cannot be fetched side by side (that would mean building their addresses), but its two ends can, so
 * a large group whose projects sit directly in it takes half the time. Each project is judged by
 * whichever end reached it first; where they meet, a page may be read by both (one request more).
 */
async function rest(p: Partitioning, up: AsyncIterator<Page<Project>>, first: Opening, judgePage: (items: Project[]) => void, downward: () => AsyncIterator<Page<Project>>): Promise<void> {
  if (first.count <= BOTH_ENDS_ABOVE_PAGES) return follow(up, judgePage, p.slots);
  let top = Math.max(...first.ids);
  let bottom = Infinity;
  // Both ends stop once every project counted has been seen; failing that (a project deleted
  // meanwhile), where their ids meet.
  let seen = first.ids.length;
  // Pages asked for and not yet answered count as seen, so the two ends never both ask for the last.
  let asked = 0;
  const open = () => top < bottom && seen + asked * PER_PAGE < first.projects;
  const end = async (pages: AsyncIterator<Page<Project>>, mine: (project: Project) => boolean, moved: (ids: number[]) => void) => {
    while (open()) {
      asked++;
      const page = await p.slots(() => pages.next()).finally(() => asked--);
      if (page.done) break;
      const fresh = page.value.items.filter(mine);
      seen += fresh.length;
      judgePage(fresh);
      moved(page.value.items.map((project) => project.id));
    }
    await pages.return?.(undefined);
  };
  await Promise.all([
    end(up, (project) => project.id < bottom, (ids) => (top = Math.max(top, ...ids))),
    end(downward(), (project) => project.id > top, (ids) => (bottom = Math.min(bottom, ...ids))),
  ]);
}

/**
 * A listing's first page, judged; what splitting needs of it is kept (its counts, its projects' ids),
 * not the page, which would otherwise stay in memory while the partitions below it run. Undefined
 * when that page was the last.
 */
async function opening(pages: AsyncIterator<Page<Project>>, judgePage: (items: Project[]) => void, slots: LimitFunction): Promise<Opening | undefined> {
  const first = await slots(() => pages.next());
  if (first.done) return undefined;
  judgePage(first.value.items);
  if (first.value.checkpoint.next === null) return undefined;
  const total = first.value.meta.total;
  const projects = typeof total === "number" ? total : Infinity;
  return { projects, count: Math.ceil(projects / PER_PAGE), ids: first.value.items.map((project) => project.id) };
}

/** What a listing's first page told: how many projects and pages it counts (Infinity above 10,000), and its ids. */
interface Opening {
  projects: number;
  count: number;
  ids: number[];
}

/** The ids of a group's direct subgroups. */
async function childIds({ x, slots }: Partitioning, group: number): Promise<number[]> {
  const ids: number[] = [];
  const pages = x.gitlab.listSubgroups(group, { signal: x.signal }).pages();
  for (let page = await slots(() => pages.next()); !page.done; page = await slots(() => pages.next())) ids.push(...page.value.items.map((g) => g.id));
  return ids;
}

/** The rest of a listing, one page after another, each page taking a slot. */
async function follow(pages: AsyncIterator<Page<Project>>, judgePage: (items: Project[]) => void, slots: LimitFunction): Promise<void> {
  for (let page = await slots(() => pages.next()); !page.done; page = await slots(() => pages.next())) judgePage(page.value.items);
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
