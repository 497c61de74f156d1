/**
 * The ledger: each project the examination judged, with the listing that judged it, so that no project
 * is judged twice however the listings overlap, and a project that moved after it was judged can be
 * told (projects/sweep.ts mends moves; docs/how-enforce-works.md tells why a move upsets an offset listing).
 */
import type { Project, Visibility } from "../../../gitlab/index.ts";
import { httpDate } from "../../../http/index.ts";

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
  /**
   * Listings read to their end that showed fewer projects than their first page counted (both-ends.ts):
   * one moved away or deleted meanwhile shifted the later offset pages, and may have hidden another.
   * The sweep reads each again; one still short as the slice ends is recorded as not examined (slice.ts).
   */
  short: Map<GroupListing, { counted: number; listed: number }>;
}

export function newLedger(): Ledger {
  return { judged: new Map(), changed: new Set(), short: new Map() };
}

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

/**
 * The server's time (ms) a little before it answered, by the answer's `Date`; `sentAt` is the local time
 * it was asked for. A `Date` that is not an HTTP-date (a proxy's "1.5", which Date.parse reads as 2001:
 * the sweep would read every project again) counts as none.
 */
export function answeredBefore(date: string | undefined, sentAt: number): number {
  const at = date ? httpDate(date.trim()) : NaN;
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

