/**
 * Reading one group's audit events for attribution (attribution.ts), page by page, newest first,
 * window by window, from wherever an earlier read of the same run left it: the examination begins a
 * group's read in its slots (attribution-early.ts), the attribute step after the guard reads on.
 * Where every read stands is the AttributionState, JSON: each examination step returns it (a durable
 * execution checkpoints it), so a resumed run never asks for a page it has had an answer to.
 */
import { AUDIT_EVENT_ROUTES, auditWindows, getUser, HttpError, listAuditEvents, type AuditEvent, type AuditSource, type GitLabClient } from "../../gitlab/index.ts";
import type { Checkpoint } from "../../paging/index.ts";
import type { AddedBy, Attribution, ShareRef } from "../shares/plan.ts";

/** Where one group's events stand. */
export interface GroupRead {
  path: string;
  /** Windows (newest first) whose first page was asked for. */
  begun: number;
  /** Where the last begun window's listing stands, while part of it is still to read. */
  from?: Checkpoint;
  /** The events could not be read: the attribution its removals get, and GitLab's status (or the error). */
  unread?: { attribution: "off" | "not visible"; status: string };
}

/** An event that created a share or raised its level: its author, time and id (the key names the share). */
export interface RecordedEvent {
  share: string;
  id: number;
  authorId: number;
  name: string;
  at: string;
}

export interface AttributionState {
  /** Audit-event pages asked for (what the budget counts), and requests sent for them (retries included: each phase adds its own). */
  pages: number;
  requests: number;
  /** Every group whose events were begun, by id. */
  groups: Record<string, GroupRead>;
  /** Events read while examining that no stray found by then claimed, newest per share (attribution-early.ts bounds how many). */
  unclaimed: RecordedEvent[];
  /** An answer showed this GitLab has no audit events (Free): no group is asked any more. */
  off?: true;
  /** A first group's answer came back, and not "off": other groups may be read beside each other. */
  open?: true;
  /** Each author looked up so far, by user id: the username (null: a look-up that failed), so none is looked up twice. */
  authors?: Record<string, string | null>;
}

export const emptyAttributionState = (): AttributionState => ({ pages: 0, requests: 0, groups: {}, unclaimed: [] });

/** The group whose events record this share: the invited group for a project share, the shared one for a group share (docs/api-contract.md). */
export function recordedIn(action: ShareRef): { groupId: number; path: string } {
  return action.kind === "group" ? { groupId: action.sharedGroupId, path: action.sharedGroup } : { groupId: action.groupId, path: action.group };
}

const ROLE_LEVELS: Record<string, number> = { "Minimal Access": 5, Guest: 10, Planner: 15, Reporter: 20, Developer: 30, Maintainer: 40, Owner: 50 };
const level = (value: unknown): number => (typeof value === "number" ? value : (ROLE_LEVELS[String(value)] ?? NaN));

/** A group share's creation, or an update that raised its access (a changed expiry or a lowered level granted nothing). */
function grantedGroupShare(e: AuditEvent): boolean {
  if (e.event_name === "group_share_with_group_link_created") return true;
  if (e.event_name !== "group_share_with_group_link_updated") return false;
  const changes = Array.isArray(e.details?.["changes"]) ? (e.details["changes"] as { change?: unknown; from?: unknown; to?: unknown }[]) : [];
  // Levels GitLab writes in a form not known here count as raised: better a name than none.
  return changes.some((c) => c.change === "group_access" && !(level(c.to) <= level(c.from)));
}

/**
 * The share (its shareKey) an event on `groupId`'s list created or raised, if any: a project share
 * with the group (rows older than 15.9 have no event_name: `add: "project_access"` marks them), or a
 * share of the group with another.
 */
function sharedBy(groupId: number, e: AuditEvent): string | undefined {
  const target = Number(e.details?.target_id);
  if (!Number.isSafeInteger(target)) return undefined;
  if (e.event_name === "project_group_link_created" || (!e.event_name && e.details?.add === "project_access")) return `project:${target}:${groupId}`;
  return grantedGroupShare(e) ? `group:${groupId}:${target}` : undefined;
}

export interface ReadOn {
  gitlab: GitLabClient;
  /** The token is an administrator: the instance endpoint, narrowed to the group, reads any group's events. */
  admin: boolean;
  now: Date;
  days: number;
  signal?: AbortSignal | undefined;
  /** Sends one page's request, or answers `held` when it may no longer (the examination paused or ended). */
  send<T>(request: () => Promise<T>): Promise<T | typeof HELD>;
  /** Whether a page may be asked for: a window's first (the group was given those when it began) or a further one. */
  may(first: boolean): boolean;
  /** Each event that records a share, newest first; true once every share looked for is found (the read ends there). */
  found(event: RecordedEvent): boolean;
}

export const HELD = Symbol("held");

/**
 * Reads on from where `read` stands: "read" once all its days are, "found" when `found` said every
 * share was, "held" when a page was not to be asked for (`read` says where it stopped, to go on from).
 * An answer's error is thrown, `read` left where it was.
 */
export async function readOn(state: AttributionState, groupId: number, read: GroupRead, ctx: ReadOn): Promise<"read" | "found" | "held"> {
  const source: AuditSource = ctx.admin ? { kind: "instance", entityType: "Group", entityId: groupId } : { kind: "group", id: groupId };
  const windows = auditWindows(ctx.now, ctx.days);
  while (read.from || read.begun < windows.length) {
    const first = !read.from;
    const index = first ? read.begun : read.begun - 1;
    if (!ctx.may(first)) return "held";
    const pages = listAuditEvents(ctx.gitlab, source, windows[index]!, { signal: ctx.signal, ...(read.from ? { from: read.from } : {}) }).pages();
    try {
      for (;;) {
        // Counted when asked for, so that reads beside each other share the budget; given back if held. A window's
        // first page is owed (owed()) until then: begun as it is asked for, or it would count twice while in flight.
        state.pages++;
        const opening = first && read.begun === index;
        if (opening) read.begun = index + 1;
        const page = await ctx.send(() => pages.next()).catch((err: unknown) => {
          if (opening) read.begun = index;
          throw err;
        });
        if (page === HELD) {
          if (opening) read.begun = index;
          return (state.pages--, "held");
        }
        if (page.done) {
          delete read.from;
          break;
        }
        const done = page.value.checkpoint.next === null;
        if (done) delete read.from;
        else read.from = page.value.checkpoint;
        let all = false;
        for (const event of page.value.items) {
          const share = sharedBy(groupId, event);
          if (share) all = ctx.found({ share, id: event.id, authorId: event.author_id, name: event.details?.author_name ?? `user ${event.author_id}`, at: event.created_at });
          if (all) return "found";
        }
        if (done) break;
        if (!ctx.may(false)) return "held";
      }
    } finally {
      await pages.return(undefined);
    }
  }
  return "read";
}

/** Whether every window of the group's days was read to its end. */
export function readToTheEnd(read: GroupRead, now: Date, days: number): boolean {
  return !read.unread && !read.from && read.begun >= auditWindows(now, days).length;
}

/** The first pages a begun read is still owed (one per window not yet begun), so that what it began it can finish. */
export function owed(state: AttributionState, windows: number): number {
  return Object.values(state.groups).reduce((n, read) => n + (read.unread ? 0 : windows - Math.min(windows, read.begun)), 0);
}

/** A refusal (403, 404) of the audit events is an answer about them, not a failure of the run; a stop by the run's signal is. */
export function unreadable(err: unknown, admin: boolean, signal?: AbortSignal): NonNullable<GroupRead["unread"]> {
  if (signal?.aborted) throw err;
  if (!(err instanceof HttpError)) return { attribution: "not visible", status: err instanceof Error ? err.message : String(err) };
  // A 404 for a group we read the shares of, or a 403 to an administrator: this GitLab has no audit events (Free).
  const off = err.status === 404 || (err.status === 403 && admin);
  return { attribution: off ? "off" : "not visible", status: String(err.status) };
}

/** What a removal whose event was not found gets from its group's read: unread, read to the end ("not recorded"), or nothing yet. */
export function unfound(read: GroupRead | undefined, now: Date, days: number): Attribution | undefined {
  if (read?.unread) return read.unread.attribution;
  return read && readToTheEnd(read, now, days) ? "not recorded" : undefined;
}

/**
 * Who an event names, looked up once per author (deploy tokens, -2, and keys, -3, are no users); a failed
 * look-up only leaves the username out. Each username found goes into `known` (the state's), which those
 * of an earlier step or phase come from.
 */
export function authorsOf(gitlab: GitLabClient, signal: AbortSignal | undefined, known: Record<string, string | null>, send: <T>(request: () => Promise<T>) => Promise<T> = (request) => request()): (event: RecordedEvent) => Promise<AddedBy> {
  const usernames = new Map<number, Promise<string | null>>(Object.entries(known).map(([id, username]) => [Number(id), Promise.resolve(username)]));
  return async (event) => {
    let username = usernames.get(event.authorId);
    if (!username) {
      const lookup = event.authorId > 0 ? send(() => getUser(gitlab, event.authorId, signal)).then((u) => u.username, () => null) : Promise.resolve(null);
      username = lookup.then((name) => (event.authorId > 0 && (known[event.authorId] = name), name));
      usernames.set(event.authorId, username);
    }
    return { name: event.name, username: await username, at: event.at, eventId: event.id };
  };
}

/** Requests sent so far to the audit event endpoints. */
export function auditRequests(gitlab: GitLabClient): number {
  const byRoute = gitlab.http.stats.totals.byRoute;
  return Object.values(AUDIT_EVENT_ROUTES).reduce((n, route) => n + (byRoute[`GET ${route}`]?.requests ?? 0), 0);
}
