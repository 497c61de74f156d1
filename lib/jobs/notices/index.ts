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
import type { AuditSink } from "../report/index.ts";
import { stepInParts, type Steps } from "../steps.ts";
import { planNotices, type NoticeClosure, type NoticeState } from "./plan.ts";
import { closedNotices, noticeSummary, type ClosedNotice, type NoticeSummary } from "./summary.ts";
import { writeNotices } from "./write.ts";

export { noticesLine, type ClosedNotice, type NoticeSummary } from "./summary.ts";
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
  measured<T extends object>(run: () => Promise<T>): Promise<T & { stats: RequestCounts }>;
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
  // One state per stray: recorded 1,000 strays a step in a durable execution ("notices", "notices 2", …).
  const { result: planned, entries, again } = await stepInParts(steps, "notices", () => input.measured(() => planNotices(input)), {
    of: (r) => Object.entries(r.states),
    with: (r, states) => ({ ...r, states: Object.fromEntries(states) }),
  });
  applyStates(input.plan, Object.fromEntries(entries));
  return { closures: planned.closures, warnings: planned.warnings, stats: [planned.stats, ...again.map((r) => r.stats)], ...(planned.unreadable && { unreadable: true as const }) };
}

/** Opens and closes the notices of an applying run, after its removals: `sorted.closures` become what was done; its warnings and stats are returned. */
export async function settleNotices(input: NoticePhase & { audit?: AuditSink }, sorted: Sorted, steps: Steps): Promise<{ warnings: string[]; stats: RequestCounts } | undefined> {
  if (sorted.unreadable) return undefined;
  const written = await steps.step("write notices", () => input.measured(() => writeNotices({ ...input, closures: sorted.closures })), { changes: true });
  applyStates(input.plan, written.states);
  sorted.closures = written.closures;
  return written;
}

/** The report's notice fields: the summary's counts, and the notices closed (or to close) for a reason other than a removal. */
export function noticeReport(policy: Policy, actions: readonly ShareRemoval[], sorted: Sorted | undefined): { summary?: NoticeSummary; notices?: { project: string; closed: ClosedNotice[] } } {
  const project = policy.gitlab?.shares.notices?.project;
  if (!sorted) return {};
  return { summary: noticeSummary(actions, sorted.closures), ...(project !== undefined && { notices: { project, closed: closedNotices(sorted.closures) } }) };
}

function applyStates(plan: ShareRemoval[], states: Record<string, NoticeState>): void {
  for (const action of plan) {
    const state = states[shareKey(action)];
    if (state) Object.assign(action, state);
  }
}
