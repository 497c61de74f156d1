/**
 * How enforce lists the projects in scope: each scope group as a tree of partitions, each following
 * its own links, split where a branch is large; or the whole instance, in id ranges by keyset.
 */
import { HttpError, type GitLabClient, type Group, type Project, type Visibility } from "../gitlab/index.ts";
import type { Checkpoint, Page } from "../paging/index.ts";
import { scopeGroups, type Policy } from "../policy/index.ts";
import type { Examination, Subject } from "./enforce-kinds.ts";
import { answeredBefore, inGroupItself, lists, sweepMoves, unjudged, type GroupListing } from "./enforce-moves.ts";
import { chainPriority, inSlot, PAUSED, PRIORITY } from "./enforce-slots.ts";
import { errorText } from "./report.ts";
import { awaitedLater } from "./awaited-later.ts";

/** Above this many projects, the instance (without a scope) is listed in id ranges that run in parallel. */
export const PARTITION_ABOVE = 2_000;

/** GitLab's largest page. */
const PER_PAGE = 100;
/** A listing of this many pages or fewer is never split: a split costs two requests or more. */
const SPLIT_ABOVE_PAGES = 10;
/** Above this many pages, a listing that is not split is read from both ends (one request more at most). */
const BOTH_ENDS_ABOVE_PAGES = 4;

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
 * Where a project listing stands, as data (JSON), so that a run cut into steps (a durable execution)
 * resumes it in a later step: the instance not yet divided into id ranges; an id range; a group's
 * projects with its subgroups' (a partition, split where large), or its own only (`own`).
 */
export interface ProjectWork {
  kind: "project";
  list: "instance" | { after?: number; before?: number } | { group: number; own?: true; visibility?: Visibility };
  /** A group's full path, where known: where a project moved out of the listing shows (enforce-moves.ts). */
  path?: string;
  /** A group's own projects read for the examination of this scope group's details, which sweeps them (enforce-group-projects.ts). */
  partOf?: number;
  /** The projects the group's detail carried, judged already (in whatever slice this listing is resumed). */
  carried?: number[];
  /**
   * Projects with ids up to this one were judged already, by an enclosing listing's first page: a
   * listing sorted by id ascending opens on its subtree's smallest ids, so one number says which.
   */
  judgedUpTo?: number;
  /** The split threshold (pages) handed down from the root's first page. */
  share?: number;
  /** Set once the listing's first page is read: where its ends stand. */
  at?: Ends;
}

/** Both ends of a listing read from its two ends (or one end only: `down` null). */
interface Ends {
  up: Checkpoint;
  /** Absent until the descending end begins. */
  down?: Checkpoint | null;
  /** The highest id the ascending end reached, and the lowest the descending end reached. */
  top: number;
  bottom: number | null;
  /** Projects read, and how many the first page announced (null: above 10,000, not counted). */
  seen: number;
  projects: number | null;
}

/**
 * The project listing's first work: the scope groups, or the instance; none where the groups' details
 * carry the projects (enforce-group-projects.ts).
 */
export function beginProjects(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): ProjectWork[] {
  if (roots === undefined) return [{ kind: "project", list: "instance" }];
  return projectsWithDetails(roots, seesAllGroups) ? [] : roots.map(scopeListing);
}

/** A scope group's projects, its subgroups' included: listed as one, split where large, then swept. */
export function scopeListing(root: ScopeRoot): ProjectWork {
  return { kind: "project", list: { group: root.id }, path: root.path };
}

/**
 * Whether the projects are read with their groups' details rather than listed: where the token sees
 * every group, so that the details of the scope's groups, which group shares need anyway, are every
 * group a project can sit in.
 */
export function projectsWithDetails(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): boolean {
  return roots !== undefined && seesAllGroups;
}

/**
 * One piece of the project listing, and all it leads to, judged a page at a time as the pages arrive.
 * Every request takes a slot of the examination's pool, which the group shares' reads use too. When
 * the examination pauses (`x.pause`), no request is started any more and what is left is handed to
 * `leave` as work to resume. A scope group listed whole within one slice (a run in one go is one
 * slice), in more than one page, is then swept for projects moved meanwhile (enforce-moves.ts).
 */
export async function examineProjects(x: Examination, work: ProjectWork, judge: (subjects: Subject[]) => void, leave: (work: ProjectWork) => void): Promise<void> {
  const judgeProjects = (items: Project[]) => judge(items.map(projectSubject));
  let left = false;
  const keep = (rest: ProjectWork) => {
    left = true;
    leave(rest);
  };
  const p = partitioning(x, judgeProjects, keep);
  if (work.at) return ends(p, work, work.at);
  if (x.pause?.aborted) return leave(work);
  if (work.list === "instance") {
    const ranges = await x.slots(() => instanceRanges(x.gitlab, x.concurrency * 2, x.signal), PRIORITY.opening);
    await Promise.all(ranges.map((list) => examineProjects(x, { kind: "project", list }, judge, leave)));
    return;
  }
  await partition(p, work);
  const root = listingOf(p, work);
  // Only a scope group begun here (split partitions carry judgedUpTo) has all it judged in this ledger.
  const begunHere = work.judgedUpTo === undefined && work.share === undefined && work.partOf === undefined;
  if (left || !begunHere || root === "instance" || p.began === undefined || !p.paged) return;
  await sweepScope(x, root, p.began, judgeProjects, p.listings);
}

/**
 * Sweeps a scope group listed whole within this slice for projects moved meanwhile (enforce-moves.ts),
 * from `since` (server time): the sweep and the listings it reads again are short, so they finish even
 * when the slice ends meanwhile. A failed sweep is a warning: every project was listed, and what moved
 * meanwhile the next run finds.
 */
export async function sweepScope(x: Examination, root: GroupListing, since: number, judgeProjects: (projects: Project[]) => void, listings?: Map<string, GroupListing>): Promise<void> {
  // No pause reaches the sweep, so nothing is ever left.
  const sweeping = partitioning({ ...x, pause: undefined }, judgeProjects, () => undefined, listings);
  const reread = ({ path, whole: _, ...list }: GroupListing) => partition(sweeping, { kind: "project", list, ...(path === undefined ? {} : { path }), share: Infinity });
  await sweepMoves({ x: sweeping.x, root, since, judge: judgeProjects, reread }).catch((err: unknown) => {
    if (x.signal.aborted) throw err;
    x.warnings.push(`could not look for projects moved between groups of ${root.path ?? `group ${root.group}`} while they were listed (${errorText(err)}): the next run judges any this one missed`);
  });
}

interface Partitioning {
  x: Examination;
  /** Judges a page's projects, read by this listing (the ledger leaves out those judged already). */
  judgePage: (items: Project[], by: GroupListing | "instance") => void;
  leave: (work: ProjectWork) => void;
  /** One object per group listing, so the ledger says which listing judged a project (enforce-moves.ts). */
  listings: Map<string, GroupListing>;
  /** Server time a little before the first page was answered, and whether any listing had a second page. */
  began?: number;
  paged: boolean;
}

/** Listings judged through the ledger (each project once), leaving what a pause stops to `leave`. */
function partitioning(x: Examination, judgeProjects: (projects: Project[]) => void, leave: (work: ProjectWork) => void, listings = new Map<string, GroupListing>()): Partitioning {
  return { x, judgePage: (items, by) => judgeProjects(unjudged(x.ledger, items, by)), leave, listings, paged: false };
}

type GroupList = Extract<ProjectWork["list"], { group: number }>;

/** The group a piece of work lists, with how; undefined for the instance or an id range of it. */
function groupListOf(work: ProjectWork): GroupList | undefined {
  return typeof work.list === "object" && "group" in work.list ? work.list : undefined;
}

function listingOf(p: Partitioning, work: ProjectWork): GroupListing | "instance" {
  const list = groupListOf(work);
  if (!list) return "instance";
  const key = `${list.group}${list.own ? " own" : ""} ${list.visibility ?? ""}`;
  let listing = p.listings.get(key);
  if (!listing) p.listings.set(key, (listing = { ...list, ...(work.path === undefined ? {} : { path: work.path }) }));
  return listing;
}

/** The listing a piece of work reads, from its start or from a checkpoint. */
function listing(x: Examination, work: ProjectWork, sort: "asc" | "desc", from?: Checkpoint): AsyncIterator<Page<Project>> {
  const list = { signal: x.signal, from };
  if (work.list === "instance") throw new Error("the instance is listed in id ranges");
  if ("group" in work.list) return x.gitlab.listGroupProjects(work.list.group, list, { includeSubgroups: !work.list.own, sort, visibility: work.list.visibility }).pages();
  return x.gitlab.listProjects({ idAfter: work.list.after, idBefore: work.list.before, list }).pages();
}

/** A slot for one page, by its priority (enforce-slots.ts); once the examination pauses, nothing is sent. */
export function nextPage(x: Examination, pages: AsyncIterator<Page<Project>>, priority: number): Promise<IteratorResult<Page<Project>> | typeof PAUSED> {
  return inSlot(x, () => pages.next(), priority);
}

/**
 * A group's projects, its subgroups' included (or its own only). GitLab's contract is to follow the
 * `Link` of each answer and never build a page's address, so the pages of one listing come one after
 * another: parallelism comes from partitions. The listing starts as one (a small tree costs no extra
 * request); when its first page shows it is large — more pages than an even share of the slots (and
 * than 10; twice that for a branch already split off), or no total at all (above 10,000) — it is split
 * into the group's own projects and each direct subgroup's tree, and each of those is judged the same
 * way, so a heavy branch is split as deep as its shape allows while light ones stay whole. A split
 * reads its first page again (those projects are not judged twice) and ends each partition on a
 * partial page, so a tree with more child groups than pages (thousands of tiny groups) is listed whole
 * instead. A token that cannot see every group never splits: GitLab lists to it only the subgroups it
 * is a member of, and a partition missed is projects never judged. An id range of the instance is
 * never split: the instance is cut into enough of them.
 *
 * Projects moved between groups meanwhile: the sweep mends what they do where a scope group was
 * listed within one slice (enforce-moves.ts). Where its listing spans slices, a project moved from a
 * partition not yet listed into one already listed is missed by this run (the next finds it); one
 * moved the other way may be judged twice, but its strays are planned once (enforce de-duplicates them
 * by share).
 */
async function partition(p: Partitioning, work: ProjectWork): Promise<void> {
  const { x } = p;
  const pages = listing(x, work, "asc");
  const sentAt = Date.now();
  const first = await nextPage(x, pages, PRIORITY.opening);
  if (first === PAUSED) return p.leave(work);
  if (first.done) return;
  p.began ??= answeredBefore(first.value.meta.date, sentAt);
  judgeAbove(p, work, first.value.items);
  if (first.value.checkpoint.next === null) return;
  p.paged = true;
  const opening = counts(first.value);
  const top = Math.max(work.judgedUpTo ?? 0, ...first.value.items.map((project) => project.id));
  const list = groupListOf(work);
  const group = list && !list.own ? list.group : undefined;
  // The root's first page sets the share, its pages spread evenly over the slots; a branch below it
  // splits only when it holds clearly more (twice that), since every split costs requests.
  const even = work.share ?? Math.max(SPLIT_ABOVE_PAGES, Math.ceil((Number.isFinite(opening.pages) ? opening.pages : 10_000 / PER_PAGE) / x.concurrency));
  const large = opening.pages > (work.share === undefined ? even : 2 * even);
  const bySubgroups = group !== undefined && large && x.seesAllGroups;
  // Looking up the subgroups takes a round trip. Where the listing will likely be read whole after
  // it — a branch whose first page is nearly all the group's own projects, on a GitLab that offers no
  // visibility to split by — its next pages are asked for meanwhile, held unjudged, and read on if it
  // is not split after all (two requests spent if it is).
  const likelyWhole = work.share !== undefined && first.value.items.every((project) => project.visibility === undefined) && ownShare(work, first.value) >= 0.9;
  const ahead = bySubgroups && likelyWhole ? readAhead(x, work, pages, opening.pages) : undefined;
  // Split after all: this listing is read no further.
  const drop = async () => void (await (ahead?.drop() ?? pages.return?.(undefined)));
  const children = bySubgroups ? await subgroups(x, group) : [];
  if (children.length === 0 || children.length >= opening.pages) {
    if (large && (await byVisibility(p, work, first.value, top))) return drop();
    return rest(p, work, first.value, top, ahead ?? { up: { pages } });
  }
  await drop();
  const part = (list: ProjectWork["list"], path: string | undefined, share?: number): ProjectWork => ({
    kind: "project", list, judgedUpTo: top, ...(path === undefined ? {} : { path }), ...(share === undefined ? {} : { share }),
  });
  const parts = [part({ group: group!, own: true }, work.path), ...children.map((child) => part({ group: child.id }, child.full_path, even))];
  handOver(p, work, first.value.items, parts);
  await Promise.all(parts.map((split) => partition(p, split)));
}

/**
 * The projects of a split listing's first page, judged by it, are paged over by the parts too (below
 * their `judgedUpTo`): one of them moving away shifts the part that holds it, so the ledger names
 * that part as its listing, the one to read again (enforce-moves.ts).
 */
function handOver(p: Partitioning, work: ProjectWork, items: Project[], parts: ProjectWork[]): void {
  const { judged } = p.x.ledger;
  const whole = listingOf(p, work);
  const listings = parts.map((part) => listingOf(p, part));
  for (const project of items) {
    if (judged.get(project.id) !== whole) continue;
    const holder = listings.find((listing) => listing !== "instance" && lists(listing, project));
    if (holder) judged.set(project.id, holder);
  }
}

/** A listing's pages from where one end stands, and the next one's answer where it was asked for ahead. */
interface Chain {
  pages: AsyncIterator<Page<Project>>;
  next?: Promise<NextPage> | undefined;
}

type NextPage = Awaited<ReturnType<typeof nextPage>>;

/** A listing after its first page: read from both ends above a few pages (enforce's id ranges from one). */
async function rest(p: Partitioning, work: ProjectWork, first: Page<Project>, top: number, chains: { up: Chain; down?: Chain }): Promise<void> {
  const opening = counts(first);
  // An id range of the instance is read from one end (GitLab's keyset on /projects goes up only).
  const oneEnd = opening.pages <= BOTH_ENDS_ABOVE_PAGES || !groupListOf(work);
  if (first.checkpoint.next === null || oneEnd) await close(chains.down);
  if (first.checkpoint.next === null) return close(chains.up);
  const at: Ends = { up: first.checkpoint, top, bottom: null, seen: first.items.length, projects: Number.isFinite(opening.projects) ? opening.projects : null };
  if (oneEnd) at.down = null;
  return ends(p, { ...work, at }, at, { up: chains.up, ...(oneEnd ? {} : { down: chains.down }) });
}

/**
 * The next page up and the first page down of a large listing, asked for before anyone knows whether
 * they will be read (each failure is the reader's to throw, when it reads it); `drop` when the listing
 * is split instead.
 */
function readAhead(x: Examination, work: ProjectWork, pages: AsyncIterator<Page<Project>>, total: number): { up: Chain; down: Chain; drop(): Promise<void> } {
  // Unknown totals (above 10,000 projects) count as 10,000, as ends() counts them.
  const priority = chainPriority((Number.isFinite(total) ? total : 10_000 / PER_PAGE) / 2);
  const ask = (chain: AsyncIterator<Page<Project>>): Chain => ({ pages: chain, next: awaitedLater(nextPage(x, chain, priority)) });
  const up = ask(pages);
  const down = ask(listing(x, work, "desc"));
  return { up, down, drop: async () => void (await Promise.all([close(up), close(down)])) };
}

/** The share of a page's projects that sit in the listing's group itself (0 where its path is unknown). */
function ownShare(work: ProjectWork, page: Page<Project>): number {
  const group = work.path;
  if (group === undefined || page.items.length === 0) return 0;
  return page.items.filter((project) => inGroupItself(group, project)).length / page.items.length;
}

/** Ends a chain: its page asked for ahead settled, its listing closed. */
async function close(chain: Chain | undefined): Promise<void> {
  if (!chain) return;
  await chain.next?.catch(() => undefined);
  await chain.pages.return?.(undefined);
}

const VISIBILITIES: readonly Visibility[] = ["private", "internal", "public"];

/**
 * A large listing no subgroup can split (a group holding its projects directly, or more child groups
 * than pages) is split by visibility, which every project has exactly one of: three listings,
 * disjoint and together whole, each read from both ends, so a chain of N pages becomes three shorter
 * ones. It goes ahead only if their first pages show GitLab applied the filter (each project of the
 * visibility asked for, the totals adding up to the listing's): a server that ignores it would have
 * each list everything, so then the listing goes on whole, three requests spent. A server whose
 * projects show no visibility is not asked at all. False then, or when the examination paused meanwhile.
 */
async function byVisibility(p: Partitioning, work: ProjectWork, first: Page<Project>, top: number): Promise<boolean> {
  const list = groupListOf(work);
  if (!list || list.visibility || first.items.some((project) => project.visibility === undefined)) return false;
  const parts = await Promise.all(
    VISIBILITIES.map(async (visibility) => {
      const part: ProjectWork = { ...work, list: { ...list, visibility }, judgedUpTo: top };
      const pages = listing(p.x, part, "asc");
      const opened = await nextPage(p.x, pages, PRIORITY.opening);
      return { visibility, part, pages, page: opened === PAUSED || opened.done ? undefined : opened.value };
    }),
  );
  const total = counts(first).projects;
  const applied =
    parts.every(({ visibility, page }) => page?.items.every((project) => project.visibility === visibility)) &&
    // Projects created, moved or deleted meanwhile may shift the totals a little, not threefold.
    (!Number.isFinite(total) || Math.abs(parts.reduce((n, { page }) => n + counts(page!).projects, 0) - total) <= Math.max(10, total / 100));
  if (!applied) {
    await Promise.all(parts.map(({ pages }) => pages.return?.(undefined)));
    return false;
  }
  handOver(p, work, first.items, parts.map(({ part }) => part));
  await Promise.all(
    parts.map(({ part, pages, page }) => {
      judgeAbove(p, part, page!.items);
      return rest(p, part, page!, Math.max(top, ...page!.items.map((project) => project.id)), { up: { pages } });
    }),
  );
  return true;
}

/**
 * Judges the projects of a page above the listing's `judgedUpTo` (those below, an enclosing listing
 * judged) and not among those its group's detail carried.
 */
function judgeAbove(p: Partitioning, work: ProjectWork, items: Project[]): void {
  const judgedUpTo = work.judgedUpTo ?? 0;
  const carried = work.carried?.length ? new Set(work.carried) : undefined;
  const fresh = judgedUpTo || carried ? items.filter((project) => project.id > judgedUpTo && !carried?.has(project.id)) : items;
  p.judgePage(fresh, listingOf(p, work));
}

/**
 * The rest of a listing after its first page. Above a few pages, it is read from both ends at once:
 * the ascending listing goes on up the ids while a second one — the same filters, sorted by id
 * descending — comes down, each following its own links, until they meet. The pages of one listing
 * cannot be fetched side by side (that would mean building their addresses), but its two ends can, so
 * a large group whose projects sit directly in it takes half the time. Each project is judged by
 * whichever end reached it first; where they meet, a page may be read by both (one request more).
 * A pause stops both ends between pages and leaves where they stand.
 */
async function ends(p: Partitioning, work: ProjectWork, at: Ends, chains: { up?: Chain; down?: Chain } = {}): Promise<void> {
  const { x } = p;
  const bottom = () => at.bottom ?? Infinity;
  // Pages asked for and not yet answered count as seen, so the two ends never both ask for the last.
  let asked = 0;
  // Both ends stop once every project counted has been seen; failing that (a project deleted
  // meanwhile), where their ids meet. A listing read from one end only goes to its last page.
  const open = () => at.down === null || (at.top < bottom() && at.seen + asked * PER_PAGE < (at.projects ?? Infinity));
  let paused = false;
  // Pages this end still has to read, about: what priority its next page gets (unknown totals count as 10,000).
  const ahead = () => ((at.projects ?? 10_000) - at.seen) / PER_PAGE / (at.down === null ? 1 : 2);
  const end = async ({ pages, next: early }: Chain, mine: (project: Project) => boolean, reached: (page: Page<Project>) => void) => {
    while (open()) {
      asked++;
      const next = early ?? nextPage(x, pages, chainPriority(ahead()));
      early = undefined;
      const page = await next.finally(() => asked--);
      if (page === PAUSED) {
        paused = true;
        break;
      }
      if (page.done) break;
      const fresh = page.value.items.filter(mine);
      at.seen += fresh.length;
      judgeAbove(p, work, fresh);
      reached(page.value);
      if (page.value.checkpoint.next === null) break;
    }
    await close({ pages, next: early });
  };
  const up = end(chains.up ?? { pages: listing(x, work, "asc", at.up) }, (project) => project.id < bottom(), (page) => {
    at.up = page.checkpoint;
    at.top = Math.max(at.top, ...page.items.map((project) => project.id));
  });
  const down =
    at.down === null
      ? undefined
      : end(chains.down ?? { pages: listing(x, work, "desc", at.down) }, (project) => project.id > at.top, (page) => {
          at.down = page.checkpoint;
          at.bottom = Math.min(bottom(), ...page.items.map((project) => project.id));
        });
  await Promise.all([up, down]);
  const finished = at.up.next === null && (at.down === null || at.down?.next === null);
  if (paused && open() && !finished) p.leave({ ...work, at });
}

/** What a listing's first page told: how many projects and pages it counts (Infinity above 10,000). */
function counts(first: Page<Project>): { projects: number; pages: number } {
  const total = first.meta.total;
  const projects = typeof total === "number" ? total : Infinity;
  return { projects, pages: Math.ceil(projects / PER_PAGE) };
}

/** A group's direct subgroups (a few pages: read whole even when a pause comes meanwhile). */
async function subgroups(x: Examination, group: number): Promise<Group[]> {
  const groups: Group[] = [];
  const pages = x.gitlab.listSubgroups(group, { signal: x.signal }).pages();
  const next = () => x.slots(() => pages.next(), PRIORITY.opening);
  for (let page = await next(); !page.done; page = await next()) groups.push(...page.value.items);
  return groups;
}

/**
 * The whole instance, by keyset on id: one listing for a small instance; otherwise `ranges` id ranges
 * listed side by side (id_after/id_before), each following its own links, the last one open-ended so a
 * project created meanwhile is still seen. One tiny request finds the newest id and the count.
 */
export async function instanceRanges(gitlab: GitLabClient, ranges: number, signal: AbortSignal): Promise<{ after?: number; before?: number }[]> {
  const newest = await gitlab.newestProject(signal);
  if (!newest || isSmall(newest.total)) return [{}];
  const step = Math.ceil(newest.id / ranges);
  return Array.from({ length: ranges }, (_, i) => ({ ...(i === 0 ? {} : { after: i * step }), ...(i === ranges - 1 ? {} : { before: (i + 1) * step + 1 }) }));
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
