/**
 * The sweep: once a scope group was listed whole within one slice, its projects changed since the
 * listing began (`updated_at`, which a transfer moves on) are read newest first, the moved ones judged
 * where they are now, and a listing one of them left, which its shift may have made skip a project,
 * read again, as is a listing that showed fewer projects than it counted as it began (a project moved
 * out of the scope or deleted meanwhile, which shows in no sweep, shifted its pages: ledger.ts).
 * Moves during a sweep are swept again, a few times (docs/how-enforce-works.md). A run in steps keeps
 * a ledger per step, so only a scope group listed within one step is swept; a listing short without
 * a sweep is recorded as not examined in full, when the slice ends (slice.ts).
 */
import type { Project } from "../../../../gitlab/index.ts";
import { errorText } from "../../../report/index.ts";
import type { Examination } from "../context.ts";
import { answeredBefore, lists, unjudged, type GroupListing } from "../ledger.ts";
import { PRIORITY } from "../slots.ts";
import { partition } from "./partition.ts";
import { listingRun } from "./pages.ts";

/** Sweeps after the first: moves keep coming during sweeps only on a busy tree, and the next run finds them. */
const SWEEPS = 3;

/**
 * Sweeps a scope group listed whole within this slice for projects moved meanwhile,
 * from `since` (server time): the sweep and the listings it reads again are short, so they finish even
 * when the slice ends meanwhile. A failed sweep is a warning: every project was listed, and what moved
 * meanwhile the next run finds.
 */
export async function sweepScope(exam: Examination, root: GroupListing, since: number, judgeProjects: (projects: Project[]) => void, listings?: Map<string, GroupListing>): Promise<void> {
  // No pause reaches the sweep, so nothing is ever left.
  const sweeping = listingRun({ ...exam, pause: undefined }, judgeProjects, () => undefined, listings);
  const reread = (listing: GroupListing) => {
    const { path, whole: _, ...list } = listing;
    // Read again from its start: the short record goes, and comes back if this reading is short too.
    exam.ledger.short.delete(listing);
    return partition(sweeping, { kind: "project", list, ...(path === undefined ? {} : { path }), share: Infinity });
  };
  await sweepMoves({ exam: sweeping.exam, root, since, judge: judgeProjects, reread, short: () => [...exam.ledger.short.keys()] }).catch((err: unknown) => {
    if (exam.signal.aborted) throw err;
    exam.warnings.push(`could not look for projects moved between groups of ${root.path ?? `group ${root.group}`} while they were listed (${errorText(err)}): the next run judges any this one missed`);
  });
}

interface Sweep {
  /** The examination, its ledger included. */
  exam: Examination;
  root: GroupListing;
  /** Server time (ms) from which on a change counts: when the root's listing began. */
  since: number;
  /** Judges projects the ledger has already recorded. */
  judge: (projects: Project[]) => void;
  /** Lists one group listing again, judging only what the ledger lacks. */
  reread: (listing: GroupListing) => Promise<void>;
  /** The listings that came out short (ledger.ts), to read again: any root's, as a moved project's listing may be. */
  short: () => GroupListing[];
}

/** Sweeps the root for projects moved since its listing began, and mends what they did to the listings. */
async function sweepMoves(s: Sweep): Promise<void> {
  let since = s.since;
  // Each change seen (a project's updated_at), so that sweeps overlapping in time act on each change once.
  const seen = new Map<number, string>();
  for (let round = 1; ; round++) {
    const { began, moved, left } = await sweepOnce(s, since, seen);
    for (const listing of s.short()) left.add(listing);
    await Promise.all([...left].map((listing) => s.reread(listing)));
    if (moved === 0 && left.size === 0) return;
    if (round === SWEEPS) {
      s.exam.warnings.push(`projects in ${s.root.path ?? `group ${s.root.group}`} were still moving between groups after ${SWEEPS} sweeps: a project moved since ${new Date(began).toISOString()} may be judged only by the next run`);
      return;
    }
    since = began;
  }
}

/** One sweep, newest change first, down to `since`: the moved projects judged now, and the listings they left. */
async function sweepOnce(s: Sweep, since: number, seen: Map<number, string>): Promise<{ began: number; moved: number; left: Set<GroupListing> }> {
  const { exam } = s;
  const { ledger } = exam;
  // A group's own listing (a target without its subtree) is swept over its own projects only.
  const pages = exam.gitlab.listGroupProjects(s.root.group, { signal: exam.signal }, { includeSubgroups: !s.root.own, orderBy: "updated_at", sort: "desc" }).pages();
  let began = Date.now();
  let moved = 0;
  const left = new Set<GroupListing>();
  try {
    for (let first = true; ; first = false) {
      const sentAt = Date.now();
      const page = await exam.slots(() => pages.next(), PRIORITY.opening);
      if (page.done) break;
      if (first) began = answeredBefore(page.value.meta.date, sentAt);
      // An item without a readable updated_at ends the sweep: it cannot say when it changed.
      const recent = page.value.items.filter((project) => Date.parse(project.updated_at ?? "") >= since);
      const changes: Project[] = [];
      for (const project of recent) {
        if (seen.get(project.id) === project.updated_at) continue;
        seen.set(project.id, project.updated_at!);
        changes.push(project);
      }
      const fresh = unjudged(ledger, changes, s.root);
      moved += fresh.length;
      s.judge(fresh);
      for (const project of changes.filter((project) => !fresh.includes(project))) {
        ledger.changed.add(project.id);
        const by = ledger.judged.get(project.id);
        if (typeof by === "object" && !by.whole && !lists(by, project)) left.add(by);
      }
      if (recent.length < page.value.items.length || page.value.checkpoint.next === null) break;
    }
  } finally {
    await pages.return?.(undefined);
  }
  return { began, moved, left };
}
