/**
 * How enforce examines group-to-group shares. Only a group's detail carries its `shared_with_groups`
 * (no listing does), so each group in scope costs one GET /groups/:id — the endpoint GitLab.com limits
 * to 400 a minute — which, for a token that sees every group, also carries the group's own projects
 * (detail-projects.ts); otherwise it is asked for without them. The groups are streamed from
 * their listing into details read side by side, never held as a whole list. Every request takes a
 * slot of the examination's pool (Examination.slots), shared with the project listings: the two kinds
 * together keep `concurrency` requests in flight, whichever has more left to do; the details wait
 * behind the listings' pages, since a detail can be read at any moment and a listing's next page cannot.
 */
import pMap from "p-map";
import { awaitedLater } from "../../../awaited-later.ts";
import { groupSubject, readGroup } from "../../../shares/kinds.ts";
import type { Examination, Sink } from "../context.ts";
import { projectsWithDetails } from "../scope.ts";
import { inSlot, PAUSED, PRIORITY } from "../slots.ts";
import { listedShort, listingFailed, notExamined, type Shortfall } from "../unexamined.ts";
import type { GroupReads, GroupWork, ScopeRoot } from "../work.ts";
import { ancestorShares } from "./ancestors.ts";
import { DetailProjects } from "./detail-projects.ts";

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
 * pauses (`exam.pause`), no request is started any more and the ids not yet read are left as work.
 * A detail GitLab fails to answer (not gone, not the run's failure) leaves that group not examined,
 * recorded (unexamined.ts), and the others are read on.
 */
export async function examineGroups(exam: Examination, work: GroupWork, sink: Sink): Promise<void> {
  if ("ancestors" in work) {
    if (exam.pause?.aborted) return sink.leave(work);
    return void exam.warnings.push(...(await ancestorShares(exam, work.ancestors)));
  }
  const left = { ...work, pending: [...work.pending] };
  const unread: number[] = [];
  // The scope group is read first: where it is still pending, its whole tree is read from here.
  const projects = work.projects && new DetailProjects(exam, sink, work.projects, work.pending[0] === work.projects.root.id && work.from === undefined);
  // The full paths the listing gave, for a group whose detail fails: only those listed and not read yet.
  const paths = new Map<number, string>(work.projects ? [[work.projects.root.id, work.projects.root.path]] : []);
  await pMap(
    groupIds(exam, left, paths, () => projects?.unlisted()),
    async (id) => {
      const path = paths.get(id);
      paths.delete(id);
      let group;
      try {
        group = await inSlot(exam, () => (projects ? projects.read(id) : readGroup(exam.gitlab, id, exam.signal)), PRIORITY.detail);
      } catch (err) {
        return notExamined(exam.unexamined, err, exam.signal, { kind: "group", id, ...(path === undefined ? {} : { path }), ...(projects?.failed(id) ? { projects: "not examined" as const } : {}) });
      }
      if (group === PAUSED) return void unread.push(id);
      // A group deleted since it was listed has no shares left to govern.
      if (group) sink.judge("group", [groupSubject(group)]);
      projects?.judge(group);
    },
    { concurrency: exam.concurrency },
  );
  if (unread.length || left.pending.length || left.list !== undefined) {
    sink.leave({ ...left, pending: [...unread, ...left.pending], ...(projects ? { projects: projects.state() } : {}) });
  }
  await projects?.finish(unread.length === 0 && left.pending.length === 0 && left.list === undefined);
}

/**
 * The ids of `work`, pending first, then its listing's pages; `work` keeps where it stands. Each page
 * is asked for as soon as the one before arrives, not once its ids are used up: the pages are a chain,
 * and the detail reads they feed are what fills idle slots, so all of them should be known early.
 * A page of a scope group's subgroups, or of the instance's groups (a policy without a scope), that
 * GitLab fails on ends the listing (unexamined.ts's listingFailed, notExamined): where the rest is
 * recorded as not examined, `unlisted` is called, since the groups not listed bring no detail, so none
 * carries their projects. One page GitLab fails on every time must not stop every run everywhere.
 * A listing that ends short of its first page's count (a group deleted, moved out or out of the
 * token's sight after its page was read shifts the later offset pages: the group after it in the order
 * is never shown) is read once more from its start, only the groups not read yet; where that cannot be
 * (begun in an earlier slice, whose ids are not kept), or it is still short, it is recorded as not
 * examined in full (listedShort), and `unlisted` is called alike.
 */
async function* groupIds(exam: Examination, work: GroupReads, paths: Map<number, string>, unlisted: () => void): AsyncGenerator<number> {
  while (work.pending.length) yield work.pending.shift()!;
  const of = work.list;
  if (of === undefined) return;
  const part = (): ListingPart => (of === "all" ? { kind: "groups", id: 0 } : { kind: "subgroups", id: of.descendantsOf, path: paths.get(of.descendantsOf) });
  // Read from its start in this slice, the ids it gave are known: a second reading skips them.
  const read = work.from === undefined ? new Set<number>() : undefined;
  const first = yield* listedIds(exam, work, of, part, paths, unlisted, read);
  if (first === PAUSED || first === "ended") return;
  let short = first;
  if (read) {
    // The group a shift hid is among those not read yet: GitLab's pages give no way to it but from the start.
    work.list = of;
    delete work.from;
    const again = yield* listedIds(exam, work, of, part, paths, unlisted, read);
    if (again === "ended") return;
    // Cut off by a pause, this reading cannot be resumed: a later slice would not know which ids it gave.
    if (again !== PAUSED) short = again;
  }
  ended(work);
  listedShort(exam.unexamined, part(), short);
  unlisted();
}

/**
 * One reading of the listing from where `work` stands, its ids not in `read` (and `read` given them):
 * "ended", its end reached (or a failed page recorded); the count it fell short of; or paused.
 */
async function* listedIds(exam: Examination, work: GroupReads, of: NonNullable<GroupReads["list"]>, part: () => ListingPart, paths: Map<number, string>, unlisted: () => void, read: Set<number> | undefined): AsyncGenerator<number, Shortfall | "ended" | typeof PAUSED> {
  const list = { signal: exam.signal, from: work.from };
  // By id, not GitLab's default (by name): a group renamed while its pages are read would shift the pages after it, and the
  // group at the next page's head would never be read though nothing happened to it. A new group comes last, and is read.
  const pages = (of === "all" ? exam.gitlab.listGroups({ all_available: true, order_by: "id", sort: "asc" }, list) : exam.gitlab.listDescendantGroups(of.descendantsOf, list, true)).pages();
  // Asked for while the ids before it are still being handed out.
  const ask = () => awaitedLater(inSlot(exam, () => pages.next(), PRIORITY.groupPages));
  try {
    for (let next = ask(); ; ) {
      let page;
      try {
        page = await next;
      } catch (err) {
        ended(work);
        // Without a scope (every group the token sees) the rest of the instance's listing: its groups' projects are listed by id.
        const rest = part();
        if (rest.kind === "groups") notExamined(exam.unexamined, err, exam.signal, rest);
        else if (!listingFailed(exam.unexamined, exam.warnings, err, exam.signal, rest)) return "ended";
        unlisted();
        return "ended";
      }
      if (page === PAUSED) return PAUSED;
      if (page.done) return ended(work);
      const { items, meta, checkpoint } = page.value;
      // GitLab counts up to 10,000 only: a larger listing cannot be told short, as a project listing cannot.
      if (checkpoint.pages === 1 && typeof meta.total === "number") work.counted = meta.total;
      work.from = checkpoint;
      // The ids read are kept only where a count may call for a second reading (no bound on them otherwise).
      const keep = work.counted === undefined ? undefined : read;
      for (const g of items) {
        if (keep?.has(g.id)) continue;
        keep?.add(g.id);
        work.pending.push(g.id);
        if (typeof g.full_path === "string") paths.set(g.id, g.full_path);
      }
      const { counted } = work;
      const last = checkpoint.next === null;
      if (last) ended(work);
      else next = ask();
      while (work.pending.length) yield work.pending.shift()!;
      if (last) return counted !== undefined && checkpoint.items < counted ? { counted, listed: checkpoint.items } : "ended";
    }
  } finally {
    await pages.return(undefined);
  }
}

/** What a listing's rest not examined is recorded as: the instance's groups, or a scope group's subgroups. */
type ListingPart = { kind: "groups"; id: 0 } | { kind: "subgroups"; id: number; path: string | undefined };

/** The listing is done with: nothing of it is left to a later slice. */
function ended(work: GroupReads): "ended" {
  delete work.list;
  delete work.counted;
  return "ended";
}
