/**
 * Who added each stray share, and when, from GitLab's audit events (Premium and Ultimate). GitLab
 * records a group share on the sharing group, but a project share on the *invited* group
 * (docs/api-contract.md, "Audit events"): so both kinds are read from one group's events, that
 * group's own endpoint (Owner) or, for an administrator, the instance's narrowed to it. The reads
 * begin during the examination, in its slots (attribution-early.ts); the attribute step, after
 * the guard, only for the removals the run may make (enforce/index.ts), takes what they found and reads
 * on where they stopped: one listing per group newest first, stopping once its strays are found or at
 * gitlab.attribution.days, and no new request once the run's budget of audit-event pages is spent
 * (attributionBudget), the examination's pages counted in it. A group whose events cannot be read
 * leaves its removals without an author, with one warning for them all; no error here fails the run
 * (attributeWithin).
 */
import pMap from "p-map";
import { auditWindows, type GitLabClient } from "../../gitlab/index.ts";
import type { Policy } from "../../policy/index.ts";
import { shareKey, type AddedBy, type Attribution, type ShareRef, type ShareRemoval } from "../shares/plan.ts";
import { count, firstOf } from "../view.ts";
import { auditRequests, authorsOf, emptyAttributionState, readOn, recordedIn, unfound, unreadable, type AttributionState, type RecordedEvent } from "./attribution-reads.ts";

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

/** What attribution reads of a share: what names it, and the author the examination may have found already. */
export type AttributedShare = ShareRef & { addedBy?: AddedBy | null };

export interface AttributionInput {
  gitlab: GitLabClient;
  policy: Policy;
  /** The token is an administrator: the instance endpoint reads any group's events. */
  admin: boolean;
  now: Date;
  /** The plan's removals (enforce), or every listed share (the access review). */
  actions: readonly AttributedShare[];
  concurrency: number;
  /** The most audit-event requests to start (attributionBudget). */
  budget: number;
  signal?: AbortSignal;
  /** Where the examination left the reads (attribution-early.ts): what it read is not asked for again. */
  state?: AttributionState;
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
  const before = auditRequests(input.gitlab) - (input.state?.requests ?? 0);
  try {
    return await attributeRemovals(input);
  } catch (err) {
    if (input.signal?.aborted) throw err;
    const warning = `attribution failed (${err instanceof Error ? err.message : String(err)}): ${count(input.actions.length, "removal")} show no author; the run went on`;
    return { attributed: input.actions.map(() => ({ addedBy: null, attribution: "not visible" })), warnings: [warning], auditRequests: auditRequests(input.gitlab) - before, budget: input.budget, stoppedAtBudget: false };
  }
}

interface Entity {
  groupId: number;
  path: string;
  /** The plan's removals still without an author, by share. */
  wanted: Map<string, number[]>;
}

export async function attributeRemovals(input: AttributionInput): Promise<AttributionResult> {
  const { gitlab, actions, signal } = input;
  const days = input.policy.gitlab?.attribution.days ?? 0;
  const state = structuredClone(input.state ?? emptyAttributionState());
  if (days === 0) return { attributed: actions.map(() => ({ addedBy: null, attribution: "off" })), warnings: [], auditRequests: state.requests, budget: input.budget, stoppedAtBudget: false };
  const requestsBefore = auditRequests(gitlab);
  const author = authorsOf(gitlab, signal, (state.authors ??= {}));
  const unclaimed = new Map(state.unclaimed.map((e) => [e.share, e]));
  const attributed: Attributed[] = actions.map(() => ({}));
  const claims: Promise<void>[] = [];
  const claim = (index: number, event: RecordedEvent) => void claims.push(author(event).then((addedBy) => void (attributed[index] = { addedBy })));
  // What the examination attributed, or read already; the rest, by the group whose events record it.
  const entities = new Map<number, Entity>();
  actions.forEach((action, index) => {
    if (action.addedBy) return void (attributed[index] = { addedBy: action.addedBy });
    const share = shareKey(action);
    const event = unclaimed.get(share);
    if (event) return claim(index, event);
    const { groupId, path } = recordedIn(action);
    const entity = entities.get(groupId) ?? { groupId, path, wanted: new Map<string, number[]>() };
    entity.wanted.set(share, [...(entity.wanted.get(share) ?? []), index]);
    entities.set(groupId, entity);
  });
  const mark = (entity: Entity, attribution: Attribution) => entity.wanted.forEach((indices) => indices.forEach((i) => (attributed[i] = { addedBy: null, attribution })));
  const toRead: Entity[] = [];
  for (const entity of entities.values()) {
    const read = state.groups[entity.groupId];
    const known = state.off && !read?.unread ? "off" : unfound(read, input.now, days);
    if (known) mark(entity, known);
    else toRead.push(entity);
  }
  // The budget counts pages asked for (a page's retries show in the requests sent). What the examination left of
  // it is shared out, the groups it began first (what they owe is already counted), then the others in the plan's
  // order: each gets the first page of each window it has still to begin, and the groups it leaves none for are not
  // read; further pages of a busy window come from what is left, while it lasts.
  const windows = auditWindows(input.now, days).length;
  let spare = input.budget - state.pages;
  const begun = (entity: Entity) => Number(String(entity.groupId) in state.groups);
  const readable = toRead.toSorted((a, b) => begun(b) - begun(a)).filter((entity) => {
    const owes = windows - Math.min(windows, state.groups[entity.groupId]?.begun ?? 0);
    if (owes > spare) return false;
    spare -= owes;
    return true;
  });
  let stoppedAtBudget = readable.length < toRead.length;
  const attribute = async (entity: Entity): Promise<void> => {
    if (state.off) return mark(entity, "off");
    const read = (state.groups[entity.groupId] ??= { path: entity.path, begun: 0 });
    const left = new Set(entity.wanted.keys());
    const found = (event: RecordedEvent) => {
      if (!left.delete(event.share)) return false;
      for (const index of entity.wanted.get(event.share)!) claim(index, event);
      return left.size === 0;
    };
    try {
      const ended = await readOn(state, entity.groupId, read, {
        gitlab, admin: input.admin, now: input.now, days, signal, send: (request) => request(), found,
        may: (first) => first || (spare > 0 && spare-- > 0),
      });
      // Read to the end of its days: a share with no event is "not recorded"; cut short by the budget, not attributed.
      if (ended === "held") stoppedAtBudget = true;
      else for (const share of left) for (const index of entity.wanted.get(share)!) attributed[index] = { addedBy: null, attribution: "not recorded" };
    } catch (err) {
      read.unread = unreadable(err, input.admin, signal);
      if (read.unread.attribution === "off") state.off = true;
      mark(entity, read.unread.attribution);
    }
  };
  // Unless a group's events were answered already, the first group alone: on a GitLab without audit events (Free), its answer spares asking the others.
  const alone = state.open ? [] : readable.slice(0, 1);
  for (const entity of alone) await attribute(entity);
  await pMap(readable.slice(alone.length), attribute, { concurrency: input.concurrency, signal });
  await Promise.all(claims);
  const requests = state.requests + auditRequests(gitlab) - requestsBefore;
  const warnings = unreadWarnings(actions, state, attributed);
  const left = attributed.filter((a) => !("addedBy" in a)).length;
  if (stoppedAtBudget) warnings.push(`attribution stopped at its budget of ${input.budget} audit-event pages (${requests} requests sent): ${count(left, "removal")} ${left === 1 ? "is" : "are"} not attributed`);
  return { attributed, warnings, auditRequests: requests, budget: input.budget, stoppedAtBudget };
}

/** At most one warning for each reason, however many groups of the plan's removals it concerns. */
function unreadWarnings(actions: readonly AttributedShare[], state: AttributionState, attributed: Attributed[]): string[] {
  const ids = new Set(actions.map((action) => String(recordedIn(action).groupId)));
  const unread = Object.entries(state.groups).flatMap(([id, read]) => (read.unread && ids.has(id) ? [{ ...read.unread, path: read.path }] : []));
  const warnings: string[] = [];
  const left = (attribution: Attribution) => count(attributed.filter((a) => a.attribution === attribution).length, "removal");
  const named = (list: typeof unread) => firstOf(list.map((u) => `${u.path} (${u.status})`), 3);
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

/** Puts each removal's attribution on it (the plan's actions, in the order attributeRemovals was given them). */
export function applyAttribution(actions: ShareRemoval[], attributed: readonly Attributed[]): void {
  actions.forEach((action, i) => Object.assign(action, attributed[i]));
}
