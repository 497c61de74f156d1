/**
 * One slice of enforce's examination (lib/jobs/enforce.ts): examine from a frontier of work until it
 * is done or the slice ends, judging each share with the pure policy, and give back what was found and
 * where the listings stand, as JSON a durable execution records. Both kinds of share are examined
 * together, every request in the one slot pool (enforce-slots.ts).
 */
import { type GitLabClient } from "../gitlab/index.ts";
import { evaluateShare, type Policy } from "../policy/index.ts";
import { kindOf, plannedRemoval, SHARE_KINDS, shareInput, type Examination, type ExaminationWork, type ShareKindSpec, type ShareRemoval, type Subject } from "./enforce-kinds.ts";
import { newLedger } from "./enforce-moves.ts";
import { slotPool } from "./enforce-slots.ts";
import { errorText } from "./report.ts";
import type { Steps } from "./steps.ts";

/** What examining counts, besides the strays. */
export interface Tally {
  projects: number;
  shares: number;
  groups: number;
  groupShares: number;
  allowed: number;
  exempt: number;
  outOfScope: number;
}

/** What one step of examination found, and where it left off: JSON, as a durable execution records it. */
export interface Slice {
  frontier: ExaminationWork[];
  tally: Tally;
  /** Stray shares, each with when it was judged (Date.now()). */
  strays: { action: ShareRemoval; judgedAt: number }[];
  warnings: string[];
  stats: StepStats;
  /** Why the listing stopped short (the run's signal, or the run's time limit), or null. */
  stopped: string | null;
  /** The slice's time ran out: the invocation may end here. */
  spent: boolean;
}

/** Requests one step sent, as lib/http counted them. */
export interface StepStats {
  requests: number;
  retries: number;
  rateLimited: number;
  pages: number;
  groupReads: number;
}

export interface SliceInput {
  gitlab: GitLabClient;
  policy: Policy;
  seesAllGroups: boolean;
  concurrency: number;
  signal: AbortSignal | undefined;
  now: Date;
  frontier: ExaminationWork[];
  steps: Steps;
  /** When the whole run must stop (epoch ms): a durable execution's own time limit. */
  runEnd: number;
  progress: (tally: Tally, strays: number) => void;
}

/**
 * Examines from `frontier` until it is done or the slice ends: its time is spent (Steps.sliceEnd),
 * or it found as many strays as a step may record. Then no request is started any more, the ones in
 * flight finish, and what is left is returned as the next frontier.
 */
export async function examineSlice(input: SliceInput): Promise<Omit<Slice, "stats">> {
  const { gitlab, policy, now, signal, steps } = input;
  const tally: Tally = { projects: 0, shares: 0, groups: 0, groupShares: 0, allowed: 0, exempt: 0, outOfScope: 0 };
  const strays: Slice["strays"] = [];
  const warnings: string[] = [];
  const frontier: ExaminationWork[] = [];
  const pause = new AbortController();
  const end = Math.min(steps.sliceEnd(), input.runEnd);
  // setTimeout fires at once past 2^31 - 1 ms (24.8 days): a slice that long is as good as no end.
  const timer = end - Date.now() < 2 ** 31 ? setTimeout(() => pause.abort(), Math.max(0, end - Date.now())) : undefined;

  const judge = (kind: ShareKindSpec) => (subjects: Subject[]) => {
    for (const subject of subjects) {
      tally[kind.counters.subjects]++;
      for (const share of subject.shares) {
        tally[kind.counters.shares]++;
        const verdict = evaluateShare(policy, shareInput(kind, subject, share), now);
        if (verdict.kind !== "stray") tally[verdict.kind === "out-of-scope" ? "outOfScope" : verdict.kind]++;
        else {
          // In steps, a project judged twice (moved mid-listing) is planned once: enforce.ts de-duplicates across slices.
          strays.push({ action: plannedRemoval(kind, subject, share, verdict.reason), judgedAt: Date.now() });
          if (strays.length >= steps.perStep) pause.abort();
        }
      }
    }
    input.progress(tally, strays.length);
  };

  // One examination failing stops the others: p-map cannot cancel mappers already running.
  const listing = new AbortController();
  const listSignal = signal ? AbortSignal.any([signal, listing.signal]) : listing.signal;
  let failure: { err: unknown } | undefined;
  const judges = new Map(SHARE_KINDS.map((kind) => [kind.kind, judge(kind)]));
  const examine = (work: ExaminationWork): Promise<boolean> => {
    const kind = kindOf(work);
    let whole = true;
    const leave = (left: ExaminationWork) => {
      whole = false;
      frontier.push(left);
    };
    return kind.examine(x, work, judges.get(kind.kind)!, leave).then(
      () => whole,
      (err: unknown) => {
        failure ??= { err };
        listing.abort(err);
        return false;
      },
    );
  };
  // Each attempt of the step keeps its own ledger: what an earlier one judged, it did not record.
  const x: Examination = {
    gitlab, policy, seesAllGroups: input.seesAllGroups, concurrency: input.concurrency, slots: slotPool(input.concurrency), signal: listSignal, pause: pause.signal, warnings, ledger: newLedger(),
    judgeKind: (kind, subjects) => judges.get(kind)!(subjects),
    examine,
  };
  let stopped: string | null = null;
  try {
    // The listings move their own positions on: an attempt of this step must start from the frontier as given.
    await Promise.all(structuredClone(input.frontier).map(examine));
    if (failure) throw failure.err;
  } catch (err) {
    if (!signal?.aborted) throw err;
    stopped = errorText(signal.reason);
  } finally {
    clearTimeout(timer);
  }
  // A project judged before it changed (moved, most often) has its removals judged again first (enforce-removal.ts).
  const changed = x.ledger.changed;
  if (changed.size) for (const stray of strays) if (stray.action.kind === "project" && changed.has(stray.action.projectId)) stray.judgedAt = 0;
  const overdue = frontier.length > 0 && Date.now() >= input.runEnd;
  if (overdue && stopped === null) stopped = `the run's time limit came at ${new Date(input.runEnd).toISOString()}`;
  return { frontier, tally, strays, warnings, stopped, spent: Date.now() >= steps.sliceEnd() };
}

export function shareKey(action: ShareRemoval): string {
  return `${action.kind}:${kindOf(action).subject(action).id}:${action.groupId}`;
}

export function statsSince(gitlab: GitLabClient, before: ReturnType<GitLabClient["http"]["stats"]["snapshot"]>): StepStats {
  const after = gitlab.http.stats.snapshot();
  const groupReads = (s: typeof after) => s.byRoute["GET /groups/:id"]?.requests ?? 0;
  return {
    requests: after.requests - before.requests,
    retries: after.retries - before.retries,
    rateLimited: after.rateLimited - before.rateLimited,
    pages: after.pages - before.pages,
    groupReads: groupReads(after) - groupReads(before),
  };
}
