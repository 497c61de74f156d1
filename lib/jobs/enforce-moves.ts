/**
 * Projects moved from one group to another while enforce lists them. A group's projects are listed by
 * offset (GitLab has no keyset there), so a move does more than move one project:
 * - a project leaving a listing that has already read it shifts the listing's later pages by one, and
 *   the project after the next page boundary is skipped, though it never moved;
 * - a project arriving where a listing has already read makes one item repeat;
 * - a project moving from a part of the tree not yet listed to a part already listed is never listed.
 * The examination keeps a ledger of the projects it judged, each with the listing that judged it, so
 * no project is judged twice; and once a scope group's listings are done, it sweeps the group's
 * projects by `updated_at` (a transfer moves it on) back to when its listing began. A moved project
 * not yet judged is judged where it is now; one that left the listing that judged it has that listing
 * read again, for the project its shift may have skipped. A project judged before it changed is marked
 * so: a removal of its shares judges them again first, where the project now is (enforce-removal.ts),
 * as its place may change what the policy says. Moves during a sweep are swept again, a few times.
 *
 * Not mended: a project moved out of the scope, or deleted, shows in no sweep, so a project its shift
 * skipped waits for the next run; and a run in steps (a durable execution) keeps a ledger per step, so
 * it sweeps only a scope group listed within one step.
 */
import type { Project, Visibility } from "../gitlab/index.ts";
import type { Examination } from "./enforce-kinds.ts";
import { PRIORITY } from "./enforce-slots.ts";

/** A group listing of projects: its own projects only, or its subtree's, of one visibility or all; `path` is the group's full path. */
export interface GroupListing {
  group: number;
  path?: string;
  own?: true;
  visibility?: Visibility;
  /** Read in one answer (a group's detail): a project leaving it later shifts nothing. */
  whole?: true;
}

export interface Ledger {
  /** Each project judged (by id), with the listing that judged it. */
  judged: Map<number, GroupListing | "instance">;
  /** Projects changed (moved, most often) after they were judged. */
  changed: Set<number>;
}

export function newLedger(): Ledger {
  return { judged: new Map(), changed: new Set() };
}

/** Sweeps after the first: moves keep coming during sweeps only on a busy tree, and the next run finds them. */
const SWEEPS = 3;
/** The Date header counts whole seconds; without one the local clock stands in, allowing for skew. */
const DATE_RESOLUTION_MS = 1_000;
const UNDATED_MARGIN_MS = 5 * 60_000;

/** Of these projects, those not judged yet, now recorded as judged by `by`. */
export function unjudged({ judged }: Ledger, items: Project[], by: GroupListing | "instance"): Project[] {
  const fresh: Project[] = [];
  for (const project of items) {
    if (judged.has(project.id)) continue;
    judged.set(project.id, by);
    fresh.push(project);
  }
  return fresh;
}

/** The server's time (ms) a little before it answered, by the answer's `Date`; `sentAt` is the local time it was asked for. */
export function answeredBefore(date: string | undefined, sentAt: number): number {
  const at = date ? Date.parse(date) : NaN;
  return Number.isFinite(at) ? at - DATE_RESOLUTION_MS : sentAt - UNDATED_MARGIN_MS;
}

/** Whether the listing would list this project where it is now (unknown paths: yes, which never reads again). */
export function lists(listing: GroupListing, project: Project): boolean {
  if (listing.visibility && project.visibility !== listing.visibility) return false;
  if (listing.path === undefined) return true;
  return listing.own ? inGroupItself(listing.path, project) : project.path_with_namespace.toLowerCase().startsWith(`${listing.path.toLowerCase()}/`);
}

/** Whether the project sits in the group itself, not in a subgroup (GitLab paths are case-insensitive). */
export function inGroupItself(groupPath: string, project: Project): boolean {
  return project.path_with_namespace.toLowerCase() === `${groupPath.toLowerCase()}/${project.path.toLowerCase()}`;
}

export interface Sweep {
  /** The examination, its ledger included. */
  x: Examination;
  root: GroupListing;
  /** Server time (ms) from which on a change counts: when the root's listing began. */
  since: number;
  /** Judges projects the ledger has already recorded. */
  judge: (projects: Project[]) => void;
  /** Lists one group listing again, judging only what the ledger lacks. */
  reread: (listing: GroupListing) => Promise<void>;
}

/** Sweeps the root for projects moved since its listing began, and mends what they did to the listings. */
export async function sweepMoves(s: Sweep): Promise<void> {
  let since = s.since;
  // Each change seen (a project's updated_at), so that sweeps overlapping in time act on each change once.
  const seen = new Map<number, string>();
  for (let round = 1; ; round++) {
    const { began, moved, left } = await sweepOnce(s, since, seen);
    await Promise.all([...left].map((listing) => s.reread(listing)));
    if (moved === 0 && left.size === 0) return;
    if (round === SWEEPS) {
      s.x.warnings.push(`projects in ${s.root.path ?? `group ${s.root.group}`} were still moving between groups after ${SWEEPS} sweeps: a project moved since ${new Date(began).toISOString()} may be judged only by the next run`);
      return;
    }
    since = began;
  }
}

/** One sweep, newest change first, down to `since`: the moved projects judged now, and the listings they left. */
async function sweepOnce(s: Sweep, since: number, seen: Map<number, string>): Promise<{ began: number; moved: number; left: Set<GroupListing> }> {
  const { x } = s;
  const { ledger } = x;
  const pages = x.gitlab.listGroupProjects(s.root.group, { signal: x.signal }, { orderBy: "updated_at", sort: "desc" }).pages();
  let began = Date.now();
  let moved = 0;
  const left = new Set<GroupListing>();
  try {
    for (let first = true; ; first = false) {
      const sentAt = Date.now();
      const page = await x.slots(() => pages.next(), PRIORITY.opening);
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
