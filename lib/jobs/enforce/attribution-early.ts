/**
 * Attribution during the examination (slice.ts): the first stray found of a group begins the read of that
 * group's audit events at once, on the examination's own slots and client, so it is done while the
 * examination waits on its slowest listings rather than after it. Its pages take slots as a listing's do
 * (examine/slots.ts), by the requests still ahead on the group's chain. Each event that records a share
 * is matched with the strays found so far, or kept for those found later (at most `keep`: a step's
 * findings are bounded, and so is memory); a group's read goes on only while a stray of it waits for its
 * event, so it never reads past the page where the last of them is found: no more pages than reading
 * after the examination, with every stray known, would. Once the whole scope is examined the reads go on
 * to their ends in the same step; after a pause they stop at their next pages, and the attribute step,
 * after the guard, reads on only what is left (attribution.ts). Where each read stands is checkpointed
 * with each examination step, so no page is asked for twice.
 *
 * What a refused run may spend: no group is begun, and no page asked for, once the strays found exceed
 * gitlab.guard.maxRemovals (a plan the guard will refuse is not attributed further), and never more
 * than the budget by what the run has examined so far (attributionBudget), counting the first page of
 * each window a begun group is still owed (the reads that go on past the examination's end are held to
 * the same). Nothing here fails the examination: a refusal marks its group.
 */
import { auditWindows, type GitLabClient } from "../../gitlab/index.ts";
import { maxRemovals, type Policy } from "../../policy/index.ts";
import { shareKey, type ShareRemoval } from "../shares/plan.ts";
import { auditRequests, authorsOf, HELD, owed, readOn, recordedIn, unreadable, type AttributionState, type GroupRead, type ReadOn, type RecordedEvent } from "./attribution-reads.ts";
import { chainPriority, type Slots } from "./examine/slots.ts";

export interface EarlyInput {
  gitlab: GitLabClient;
  policy: Policy;
  admin: boolean;
  now: Date;
  /** Where the run's reads stand (this slice's own copy: it is changed). */
  state: AttributionState;
  slots: Slots;
  /** The examination's signal; and its pause (the slice ends): no page is asked for after either. */
  signal: AbortSignal;
  pause: AbortSignal;
  /** Strays the run found before this slice. */
  strays: number;
  /** The budget by what the run has examined so far (attributionBudget). */
  budget: () => number;
  /** The most events kept for strays not found yet. */
  keep: number;
}

export interface EarlyAttribution {
  /** The strays of a batch just judged: each claims its event if read already, and begins its group's read if none is. */
  found(strays: readonly ShareRemoval[]): void;
  /**
   * Waits for the reads and the authors' look-ups, and gives the state to record. After an examination of
   * the whole scope (`drain`) each read goes on to its end, as the attribute step would take it on; after a
   * pause each stops at its next page, for the next slice.
   */
  finish(drain: boolean): Promise<AttributionState>;
}

export function earlyAttribution(input: EarlyInput): EarlyAttribution {
  const { gitlab, state } = input;
  const days = input.policy.gitlab?.attribution.days ?? 0;
  const windows = auditWindows(input.now, days).length;
  const limit = maxRemovals(input.policy);
  const requestsBefore = auditRequests(gitlab);
  const unclaimed = new Map(state.unclaimed.map((e) => [e.share, e]));
  // This slice's strays not attributed yet, and the shares already attributed (an older event of one is not its author).
  const waitingFor = new Map<string, ShareRemoval>();
  const claimed = new Set<string>();
  const reads: Promise<void>[] = [];
  const claims: Promise<void>[] = [];
  // Groups found while the first read has had no answer yet: on a GitLab without audit events, that answer spares asking them.
  const queued: { groupId: number; path: string }[] = [];
  let strays = input.strays;
  let held = false;
  const stopped = () => held || input.signal.aborted || input.pause.aborted;
  // A group's read is a chain, as a listing is: its windows one after another, then the author the event names. So its
  // pages take slots by the requests still ahead on it (slots.ts), as a listing's pages do: below a longer listing,
  // above the detail reads that can go at any moment. Waiting for slots no examination request wants left every
  // chain to the examination's end (traced on the benchmarks' uneven tree at 50 ms: 4 round trips after it).
  const inSlot = <T>(request: () => Promise<T>, ahead: number) => input.slots(async () => (stopped() ? HELD : request()), chainPriority(ahead));
  const author = authorsOf(gitlab, input.signal, (state.authors ??= {}), (request) => input.slots(request, chainPriority(0)));

  // Strays of this slice still waiting for their event, by the group whose events record them; and the reads going on.
  const pending = new Map<number, number>();
  const running = new Set<number>();
  const wait = (action: ShareRemoval, by: number) => {
    const { groupId } = recordedIn(action);
    pending.set(groupId, (pending.get(groupId) ?? 0) + by);
  };
  const claim = (action: ShareRemoval, event: RecordedEvent) => {
    claimed.add(event.share);
    if (waitingFor.delete(event.share)) wait(action, -1);
    claims.push(author(event).then((addedBy) => void Object.assign(action, { addedBy })));
  };
  const open = () => {
    if (state.off || state.open) return;
    state.open = true;
    for (const { groupId, path } of queued.splice(0)) begin(groupId, path);
  };
  const found = (event: RecordedEvent): boolean => {
    if (claimed.has(event.share)) return false;
    const action = waitingFor.get(event.share);
    if (action) claim(action, event);
    else if (!unclaimed.has(event.share)) unclaimed.set(event.share, event);
    return false;
  };
  // A group's read goes on while a stray of it waits: never past the page where the last one the run plans is found
  // (a stray found later whose event was passed finds it kept; one whose event is older takes the read on from there).
  const read = (groupId: number, at: GroupRead): void => {
    running.add(groupId);
    const ctx: ReadOn = {
      gitlab, admin: input.admin, now: input.now, days, signal: input.signal, found,
      send: (request) => inSlot(request, windows - at.begun + 1).then((page) => (page !== HELD && open(), page)),
      may: (first) => !stopped() && strays <= limit && unclaimed.size < input.keep && (pending.get(groupId) ?? 0) > 0 && (first || state.pages + owed(state, windows) < input.budget()),
    };
    const reading = readOn(state, groupId, at, ctx).then(
      () => undefined,
      (err: unknown) => {
        if (input.signal.aborted) return;
        at.unread = unreadable(err, input.admin);
        if (at.unread.attribution === "off") state.off = true;
        else open();
      },
    );
    reads.push(reading.finally(() => running.delete(groupId)));
  };
  const begin = (groupId: number, path: string): void => {
    const begun = state.groups[groupId];
    if (state.off || begun?.unread || running.has(groupId)) return;
    if (begun) return read(groupId, begun);
    const first = !state.open && !Object.keys(state.groups).length;
    if (!state.open && !first) return void (queued.some((q) => q.groupId === groupId) || queued.push({ groupId, path }));
    // Begun only with a first page for each of its windows left in the budget; if not, the attribute step may, with what is left then.
    if (state.pages + owed(state, windows) + windows > input.budget()) return;
    read(groupId, (state.groups[groupId] = { path, begun: 0 }));
  };

  return {
    found(found) {
      strays += found.length;
      for (const action of found) {
        const key = shareKey(action);
        const event = unclaimed.get(key);
        if (event) unclaimed.delete(key);
        if (event && !claimed.has(key)) claim(action, event);
        else if (!waitingFor.has(key)) {
          waitingFor.set(key, action);
          wait(action, 1);
        }
      }
      if (days === 0 || strays > limit) return;
      for (const action of found) {
        const { groupId, path } = recordedIn(action);
        begin(groupId, path);
      }
    },
    async finish(drain) {
      // Held, each read ends at its next page, and reads begun later (a first answer opening the queue) find it held at
      // once. Drained, a read whose page comes back after the examination's last sends its next one then: held, it would
      // wait for every other read in flight and the guard first, a round trip more (traced at 1,000 projects, 20 ms).
      held = !drain;
      for (let n = 0; n < reads.length; n++) await reads[n];
      held = true;
      await Promise.all(claims);
      state.unclaimed = [...unclaimed.values()];
      state.requests += auditRequests(gitlab) - requestsBefore;
      return state;
    },
  };
}
