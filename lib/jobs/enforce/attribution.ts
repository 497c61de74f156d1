/**
 * Who added each stray share, and when, from GitLab's audit events (Premium and Ultimate). GitLab
 * records a group share on the sharing group, but a project share on the *invited* group
 * (docs/api-contract.md, "Audit events"): so both kinds are read from one group's events, that
 * group's own endpoint (Owner) or, for an administrator, the instance's narrowed to it. Cost is bounded:
 * only the removals a run may make (enforce/index.ts attributes after the guard), one listing per group
 * newest first, stopping once its strays are found or at gitlab.attribution.days, and no new request
 * once the run's budget of audit-event requests is spent (attributionBudget). A group whose events
 * cannot be read leaves its removals without an author, with one warning for them all; no error here
 * fails the run (attributeWithin).
 */
import pMap from "p-map";
import { AUDIT_EVENT_ROUTES, auditWindows, getUser, HttpError, listAuditEvents, type AuditEvent, type AuditSource, type GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import type { AddedBy, Attribution, ShareRemoval } from "../shares/plan.ts";
import { count } from "../view.ts";

/** One removal's attribution, in the plan's order; empty when not attributed (the budget was spent first). */
export interface Attributed {
  addedBy?: AddedBy | null;
  attribution?: Attribution;
}

export interface AttributionResult {
  attributed: Attributed[];
  warnings: string[];
  /** Requests to the audit event endpoints (all pages, retries included). */
  auditRequests: number;
  /** The most audit-event requests the run would start, and whether it stopped there with removals left unattributed. */
  budget: number;
  stoppedAtBudget: boolean;
}

export interface AttributionInput {
  gitlab: GitLabClient;
  policy: Policy;
  /** The token is an administrator: the instance endpoint reads any group's events. */
  admin: boolean;
  now: Date;
  actions: readonly ShareRemoval[];
  concurrency: number;
  /** The most audit-event requests to start (attributionBudget). */
  budget: number;
  signal?: AbortSignal;
}

/** The least budget, for a run too small for a tenth of its work to read one group's windows. */
export const MIN_ATTRIBUTION_BUDGET = 100;

/**
 * Audit-event pages a run may ask for: a tenth of the run's lower bound of requests, as
 * docs/benchmarks.md counts it (two to resolve the scope, the projects in pages of 100, one read per
 * group, one DELETE per removal), or MIN_ATTRIBUTION_BUDGET if that is more. So attribution costs at
 * most 10 % over what the run needs anyway; and it depends only on what the run found, not on how it
 * was cut into steps.
 */
export function attributionBudget(found: { projects: number; groups: number; removals: number }): number {
  const bound = 2 + Math.ceil(found.projects / 100) + found.groups + found.removals;
  return Math.max(MIN_ATTRIBUTION_BUDGET, Math.ceil(bound / 10));
}

/**
 * attributeRemovals, never a reason for the run to fail: any error but the run's own stop leaves every
 * removal without an author ("not visible") and says why in one warning.
 */
export async function attributeWithin(input: AttributionInput): Promise<AttributionResult> {
  const before = auditRequests(input.gitlab);
  try {
    return await attributeRemovals(input);
  } catch (err) {
    if (input.signal?.aborted) throw err;
    const warning = `attribution failed (${err instanceof Error ? err.message : String(err)}): ${count(input.actions.length, "removal")} show no author; the run went on`;
    return { attributed: input.actions.map(() => ({ addedBy: null, attribution: "not visible" })), warnings: [warning], auditRequests: auditRequests(input.gitlab) - before, budget: input.budget, stoppedAtBudget: false };
  }
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

/** The group whose events record this share, and whether an event is the one that created it or last raised it. */
function recordedOn(action: ShareRemoval): { groupId: number; path: string; matches: (e: AuditEvent) => boolean } {
  const target = (e: AuditEvent, id: number) => String(e.details?.target_id) === String(id);
  if (action.kind === "group") {
    return { groupId: action.sharedGroupId, path: action.sharedGroup, matches: (e) => grantedGroupShare(e) && target(e, action.groupId) };
  }
  // Rows older than 15.9 have no event_name: `add: "project_access"` marks them.
  const created = (e: AuditEvent) => e.event_name === "project_group_link_created" || (!e.event_name && e.details?.add === "project_access");
  return { groupId: action.groupId, path: action.group, matches: (e) => created(e) && target(e, action.projectId) };
}

interface Entity {
  groupId: number;
  path: string;
  wanted: { index: number; matches: (e: AuditEvent) => boolean }[];
}

/** Why a group's events could not be read: "off" when the answer shows GitLab has no audit events at all. */
type Unread = { attribution: "off" | "not visible"; path: string; status: string };

export async function attributeRemovals(input: AttributionInput): Promise<AttributionResult> {
  const { gitlab, actions, signal } = input;
  const days = input.policy.gitlab?.attribution.days ?? 0;
  if (days === 0) return { attributed: actions.map(() => ({ addedBy: null, attribution: "off" })), warnings: [], auditRequests: 0, budget: input.budget, stoppedAtBudget: false };
  const before = auditRequests(gitlab);
  const entities = new Map<number, Entity>();
  actions.forEach((action, index) => {
    const { groupId, path, matches } = recordedOn(action);
    const entity = entities.get(groupId) ?? { groupId, path, wanted: [] };
    entity.wanted.push({ index, matches });
    entities.set(groupId, entity);
  });
  // The budget counts pages asked for (a page's retries show in the requests sent). So that what is attributed
  // does not depend on which answer came first (nor on where a durable run was cut), it is shared out in the
  // plan's order: each group read gets the first page of each window, and the groups it leaves none for
  // are not read; further pages of a busy window come from what is left, while it lasts.
  const windows = auditWindows(input.now, days).length;
  const readable = [...entities.values()].slice(0, Math.floor(input.budget / windows));
  let spare = input.budget - readable.length * windows;
  const more = () => spare > 0 && spare-- > 0;
  let stoppedAtBudget = readable.length < entities.size;
  const attributed: Attributed[] = actions.map(() => ({}));
  const unread: Unread[] = [];
  const authors = new Map<number, Promise<string | null>>();
  // Once an answer shows this GitLab has no audit events, no other group is asked.
  let tierOff = false;
  const attribute = async (entity: Entity): Promise<void> => {
    const mark = (attribution: Attribution) => entity.wanted.forEach(({ index }) => (attributed[index] = { addedBy: null, attribution }));
    if (tierOff) return mark("off");
    let found: Map<number, AuditEvent>;
    let read: boolean;
    try {
      ({ found, read } = await readEntity(input, entity, days, more));
    } catch (err) {
      const why = unreadable(err, input.admin, entity.path, signal);
      unread.push(why);
      tierOff ||= why.attribution === "off";
      return mark(why.attribution);
    }
    // Read to the end of its days: a share with no event is "not recorded"; cut short by the budget, not attributed.
    if (read) mark("not recorded");
    else stoppedAtBudget = true;
    for (const [index, event] of found) attributed[index] = { addedBy: await addedBy(gitlab, event, authors, signal) };
  };
  // The first group alone: on a GitLab without audit events (Free), its answer spares asking the others.
  const [first, ...rest] = readable;
  if (first) await attribute(first);
  await pMap(rest, attribute, { concurrency: input.concurrency, signal });
  const requests = auditRequests(gitlab) - before;
  const warnings = unreadWarnings(unread, attributed);
  const left = attributed.filter((a) => !("addedBy" in a)).length;
  if (stoppedAtBudget) warnings.push(`attribution stopped at its budget of ${input.budget} audit-event pages (${requests} requests sent): ${count(left, "removal")} ${left === 1 ? "is" : "are"} not attributed`);
  return { attributed, warnings, auditRequests: requests, budget: input.budget, stoppedAtBudget };
}

/**
 * The newest matching event of each wanted share, reading the group's events newest first, window by
 * window: the first page of each on the group's share of the budget, any further one only if `more`
 * gives it; `read` false when it did not, and the group's days were not all read.
 */
async function readEntity(input: AttributionInput, entity: Entity, days: number, more: () => boolean): Promise<{ found: Map<number, AuditEvent>; read: boolean }> {
  const source: AuditSource = input.admin ? { kind: "instance", entityType: "Group", entityId: entity.groupId } : { kind: "group", id: entity.groupId };
  const found = new Map<number, AuditEvent>();
  const seen = new Set<number>();
  for (const window of auditWindows(input.now, days)) {
    const pages = listAuditEvents(input.gitlab, source, window, { signal: input.signal }).pages();
    try {
      for (let first = true; ; first = false) {
        if (!first && !more()) return { found, read: false };
        const page = await pages.next();
        if (page.done) break;
        for (const event of page.value.items) {
          // Both bounds are inclusive: an event on a window's edge is listed twice.
          if (seen.has(event.id)) continue;
          seen.add(event.id);
          for (const { index, matches } of entity.wanted) if (!found.has(index) && matches(event)) found.set(index, event);
          if (found.size === entity.wanted.length) return { found, read: true };
        }
        // The last page: no request follows, so none of the budget is taken.
        if (page.value.checkpoint.next === null) break;
      }
    } finally {
      await pages.return(undefined);
    }
  }
  return { found, read: true };
}

/** A refusal (403, 404) of the audit events is an answer about them, not a failure of the run; a stop by the run's signal is. */
function unreadable(err: unknown, admin: boolean, path: string, signal?: AbortSignal): Unread {
  if (signal?.aborted) throw err;
  if (!(err instanceof HttpError)) return { attribution: "not visible", path, status: err instanceof Error ? err.message : String(err) };
  // A 404 for a group we read the shares of, or a 403 to an administrator: this GitLab has no audit events (Free).
  const off = err.status === 404 || (err.status === 403 && admin);
  return { attribution: off ? "off" : "not visible", path, status: String(err.status) };
}

async function addedBy(gitlab: GitLabClient, event: AuditEvent, authors: Map<number, Promise<string | null>>, signal?: AbortSignal): Promise<AddedBy> {
  let username = authors.get(event.author_id);
  if (!username) {
    // Deploy tokens (-2) and keys (-3) are no users; one look-up per author, and a failed one only leaves the username out.
    username = event.author_id > 0 ? getUser(gitlab, event.author_id, signal).then((u) => u.username, () => null) : Promise.resolve(null);
    authors.set(event.author_id, username);
  }
  return { name: event.details?.author_name ?? `user ${event.author_id}`, username: await username, at: event.created_at, eventId: event.id };
}

/** At most one warning for each reason, however many groups it concerns. */
function unreadWarnings(unread: Unread[], attributed: Attributed[]): string[] {
  const warnings: string[] = [];
  const left = (attribution: Attribution) => count(attributed.filter((a) => a.attribution === attribution).length, "removal");
  const named = (list: Unread[]) => `${list.slice(0, 3).map((u) => `${u.path} (${u.status})`).join(", ")}${list.length > 3 ? `, and ${list.length - 3} more` : ""}`;
  const off = unread.filter((u) => u.attribution === "off");
  if (off.length) {
    warnings.push(`attribution off: this GitLab answers its audit event API ${named(off)} as one without audit events does (Free tier), so ${left("off")} show no author`);
  }
  const hidden = unread.filter((u) => u.attribution === "not visible");
  if (hidden.length) {
    warnings.push(
      `attribution: the audit events of ${count(hidden.length, "group")} could not be read (${named(hidden)}): a group's events need Owner of it ` +
        `(or an administrator's token on self-managed), and GitLab Free has none; so ${left("not visible")} show no author`,
    );
  }
  return warnings;
}

/** Requests sent so far to the audit event endpoints. */
function auditRequests(gitlab: GitLabClient): number {
  const byRoute = gitlab.http.stats.totals.byRoute;
  return Object.values(AUDIT_EVENT_ROUTES).reduce((n, route) => n + (byRoute[`GET ${route}`]?.requests ?? 0), 0);
}

/** Puts each removal's attribution on it (the plan's actions, in the order attributeRemovals was given them). */
export function applyAttribution(actions: ShareRemoval[], attributed: readonly Attributed[]): void {
  actions.forEach((action, i) => Object.assign(action, attributed[i]));
}
