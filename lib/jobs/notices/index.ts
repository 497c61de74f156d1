/**
 * Notices (gitlab.shares.onStray notify, and report): the phase of enforce that decides, per stray
 * share, whether it is removed now, and keeps one GitLab issue per share noticed. Two steps
 * (lib/jobs/steps.ts): "notices" reads the open notices and sorts the strays (plan.ts: reads only, so
 * a dry run may), before the guard; "write notices", in an applying run after the removals, opens and
 * closes issues (write.ts). Each step returns what became of each stray, applied to the plan here, so
 * a durable execution's replay comes to the same plan.
 */
import type { GitLabClient, RequestCounts } from "../../gitlab/index.ts";
import { onStrayModes, type Policy } from "../../policy/index.ts";
import { shareKey, type ShareRemoval } from "../shares/plan.ts";
import { errorText, type AuditSink } from "../report/index.ts";
import { count } from "../view.ts";
import { DEADLINE_ATTEMPTS, partEnds, stepInParts, type Steps } from "../steps.ts";
import { planNotices, type NoticeClosure, type NoticeState } from "./plan.ts";
import { closedNotices, noticeSummary, type ClosedNotice, type NoticeSummary } from "./summary.ts";
import { opens, writeNotices, writesTo, type Written } from "./write.ts";

export { noticeDue, noticesLine, type ClosedNotice, type NoticeSummary } from "./summary.ts";
// For the exemption request (lib/jobs/exempt/), which finds the notices of the shares it covers as a run does.
export { noticeKey } from "./marker.ts";
export { readNotices } from "./read.ts";

export interface NoticePhase {
  gitlab: GitLabClient;
  policy: Policy;
  now: Date;
  /** The plan's strays, in order: their status and notice are set here. */
  plan: ShareRemoval[];
  /** Most notices a run opens, and closes: gitlab.guard.maxRemovals. */
  max: number;
  concurrency: number;
  signal?: AbortSignal;
  /** The token's user id, read by the run's token check (undefined in a step recorded before it was kept). */
  userId?: number | undefined;
  /** The token is an administrator: the instance's audit events are the ones read. */
  admin?: boolean;
  measured<T extends object>(run: () => Promise<T>): Promise<T & { stats: RequestCounts }>;
}

/** The report's `notices`: `unreadable` when they could not be read (the strays under notify held, and the run exits 1). */
export interface NoticesReport {
  project: string;
  closed: ClosedNotice[];
  unreadable?: true;
}

export interface Sorted {
  /** The notices project could not be read: nothing is written to it. */
  unreadable?: true;
  closures: NoticeClosure[];
  warnings: string[];
  stats: RequestCounts[];
}

/** Whether a run has notices to read: the policy handles some strays otherwise than by removal, or names a notices project (whose notices may be left to close). */
export function noticesInPlay(policy: Policy): boolean {
  const modes = onStrayModes(policy);
  return [...modes].some((mode) => mode !== "remove") || policy.gitlab?.shares.notices !== undefined;
}

/**
 * Sorts the strays by their notices (undefined when notices are not in play): a stray is then
 * "planned" (removed now), "notify", "pending" or "reported". `whole`: the run examined the whole
 * scope to the end, so a notice of a share it did not find stray may be closed.
 */
export async function sortStrays(input: NoticePhase & { whole: boolean }, steps: Steps): Promise<Sorted | undefined> {
  if (!noticesInPlay(input.policy)) return undefined;
  // One state per stray, then one entry per notice to close: recorded 1,000 entries a step in a durable execution ("notices", "notices 2", …).
  const { result: planned, entries, again } = await stepInParts(steps, "notices", () => input.measured(() => planNotices(input)), {
    of: (r): NoticeEntry[] => [...Object.entries(r.states), ...r.closures.map((closure) => ({ closure }))],
    with: (r, part) => ({ ...r, ...fromEntries(part) }),
  });
  const { states, closures } = fromEntries(entries);
  applyStates(input.plan, states);
  return { closures, warnings: planned.warnings, stats: [planned.stats, ...again.map((r) => r.stats)], ...(planned.unreadable && { unreadable: true as const }) };
}

/**
 * Opens and closes the notices of an applying run, after its removals: `sorted.closures` become what was done;
 * its warnings and stats are returned. The strays written to (notices to open, and to close as their shares
 * were removed), then the closures, perStep of them a step, or fewer where their bytes say so ("write notices", "write notices 2", …): each step
 * opens and closes only its own and records what became of them, so a checkpoint holds what one step did
 * whatever gitlab.guard.maxRemovals lets a run open.
 */
export async function settleNotices(input: NoticePhase & { audit?: AuditSink }, sorted: Sorted, steps: Steps): Promise<{ warnings: string[]; stats: RequestCounts[] } | undefined> {
  if (sorted.unreadable) return undefined;
  const strays = input.plan.filter(writesTo);
  let ends = partEnds([...strays, ...sorted.closures], steps);
  const closing = new Set(sorted.closures.map((c) => c.iid));
  const closures: NoticeClosure[] = [];
  const warnings: string[] = [];
  const stats: RequestCounts[] = [];
  /** Set once a part was cut by every invocation's deadline it was given: the parts after it are not tried. */
  let gaveUp: string | undefined;
  for (let n = 1; n <= ends.length; n++) {
    // Run directly, perStep is Infinity and there is one part: all of them.
    const [from, to] = [n === 1 ? 0 : ends[n - 2]!, ends[n - 1]!];
    const part = { plan: strays.slice(from, to), closures: sorted.closures.slice(Math.max(0, from - strays.length), Math.max(0, to - strays.length)) };
    const name = n === 1 ? "write notices" : `write notices ${n}`;
    // `spent` is recorded with the part, so a replay pauses where the execution did.
    const written: (Written & { stats: RequestCounts; parts?: number; ends?: number[]; spent?: boolean; gaveUp?: string }) | undefined = await steps.step(name, async (attempt) => {
      const recorded = { parts: ends.length, ...(n === 1 && { ends }) };
      // Its last attempt (the others each cut by their invocation's deadline: a GitLab holding its POSTs) writes
      // nothing, at the start of an invocation: the run goes on to its end with the time that leaves, and the
      // next run writes these. Failing the step would fail the run after its removals, and lose its report.
      const why = gaveUp ?? (attempt >= DEADLINE_ATTEMPTS ? `${name}: cut by the invocation's deadline ${attempt - 1} times` : undefined);
      if (why) return { ...(await input.measured(async () => notWritten(part.plan, part.closures, why))), ...recorded, spent: false, gaveUp: why };
      const done = await input.measured(() => writeNotices({ ...input, ...part, closing, again: attempt > 1 }));
      // Cut by the invocation's deadline (a durable step may even begin past it): what it could not send is not
      // its outcome. Attempted again in the next invocation, which reads first what this attempt opened.
      if (steps.deadline?.aborted) throw new Error(`${name}: cut by the invocation's deadline`);
      return { ...done, ...recorded, spent: Date.now() >= steps.sliceEnd() };
    }, { changes: true }).catch((err: unknown) => {
      // Failed for good otherwise (its failure is recorded, so a replay comes here alike): as above, what this
      // part and the rest had to write is left to the next run.
      const rest = notWritten(strays.slice(from), sorted.closures.slice(Math.max(0, from - strays.length)), errorText(err));
      applyStates(input.plan, rest.states);
      closures.push(...rest.closures);
      warnings.push(...rest.warnings);
      return undefined;
    });
    if (!written) break;
    gaveUp ??= written.gaveUp;
    // A first part recorded before parts were cut by bytes too has no `ends`: its parts were perStep each.
    if (n === 1 && written.parts !== undefined && !written.ends) ends = Array.from({ length: written.parts }, (_, i) => Math.min((i + 1) * steps.perStep, strays.length + sorted.closures.length));
    applyStates(input.plan, written.states);
    closures.push(...written.closures);
    warnings.push(...written.warnings);
    stats.push(written.stats);
    // A result recorded before results came in parts (no `parts`) holds every stray and closure.
    if (written.parts === undefined) break;
    if (n < ends.length) await steps.pause(`wrote notices ${n}`, written.spent === true);
  }
  sorted.closures = closures;
  return { warnings, stats };
}

/** What a run did not write, for good: each notice it was to open failed, each closure too, said once. */
function notWritten(strays: readonly ShareRemoval[], left: readonly NoticeClosure[], why: string): Written {
  const error = `not written (${why}): the next run writes it`;
  return {
    states: Object.fromEntries(strays.filter(opens).map((a) => [shareKey(a), { status: "failed", notice: a.notice!, error } satisfies NoticeState])),
    closures: left.map((closure) => ({ ...closure, status: "failed" as const, error })),
    warnings: [`notices: ${count(strays.length + left.length, "notice")} not opened or closed (${why}): the next run writes them`],
  };
}

/** The report's notice fields: the summary's counts, and the notices closed (or to close) for a reason other than a removal. */
export function noticeReport(policy: Policy, actions: readonly ShareRemoval[], sorted: Sorted | undefined): { summary?: NoticeSummary; notices?: NoticesReport } {
  const project = policy.gitlab?.shares.notices?.project;
  if (!sorted) return {};
  const notices = project === undefined ? undefined : { project, closed: closedNotices(sorted.closures), ...(sorted.unreadable && { unreadable: true as const }) };
  return { summary: noticeSummary(actions, sorted.closures), ...(notices && { notices }) };
}

/**
 * What the step "notices" records, one entry per share: a stray's state by its key (the one kind of
 * entry before notices to close came in parts too, so an execution recorded then replays), or a notice to close.
 */
type NoticeEntry = [string, NoticeState] | { closure: NoticeClosure };

function fromEntries(entries: readonly NoticeEntry[]): { states: Record<string, NoticeState>; closures: NoticeClosure[] } {
  return {
    states: Object.fromEntries(entries.filter((e) => Array.isArray(e))),
    closures: entries.flatMap((e) => (Array.isArray(e) ? [] : [e.closure])),
  };
}

function applyStates(plan: ShareRemoval[], states: Record<string, NoticeState>): void {
  for (const action of plan) {
    const state = states[shareKey(action)];
    if (state) Object.assign(action, state);
  }
}
