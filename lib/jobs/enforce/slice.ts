/**
 * One slice of enforce's examination (index.ts): examine from a frontier of work until it
 * is done or the slice ends, judging each share with the pure policy, and give back what was found and
 * where the listings stand, as JSON a durable execution records. Both kinds of share are examined
 * together, every request in the one slot pool (examine/slots.ts).
 */
import type { GitLabClient } from "../../gitlab/index.ts";
import { emptyRuleCounts, evaluateShare, type Policy, type RuleCounts } from "../../policy/index.ts";
import { errorText } from "../report/index.ts";
import { KIND_COUNTERS, MAX_PLANNED, plannedRemoval, shareInput, type ShareKindName, type ShareRemoval, type Subject } from "../shares/plan.ts";
import type { Steps } from "../steps.ts";
import { attributionBudget } from "./attribution.ts";
import { earlyAttribution } from "./attribution-early.ts";
import type { AttributionState } from "./attribution-reads.ts";
import { judgeUnderBase, type Difference } from "./compare.ts";
import type { Examination, HeldRead, Sink } from "./examine/context.ts";
import { examineWork } from "./examine/examiners.ts";
import { newLedger } from "./examine/ledger.ts";
import { slotPool } from "./examine/slots.ts";
import { listedShort, noneUnexamined, notExamined, type Unexamined } from "./examine/unexamined.ts";
import type { ExaminationWork } from "./examine/work.ts";
import { emptyTally, type JudgedShareHook, type StepStats, type Tally } from "./summary.ts";

/** What one step of examination found, and where it left off: JSON, as a durable execution records it. */
export interface Slice {
  frontier: ExaminationWork[];
  tally: Tally;
  /** Shares each rule allowed or exempted in this slice (absent from a step recorded before rules were counted). */
  matched?: RuleCounts;
  /** Stray shares, each with when it was judged (Date.now()), or read where that was earlier (Sink.judge). */
  strays: { action: ShareRemoval; judgedAt: number }[];
  /** Comparing with a base policy: the shares judged otherwise under it (compare.ts). Absent otherwise. */
  differences?: Difference[];
  warnings: string[];
  stats: StepStats;
  /** Why the listing stopped short (the run's signal, or the run's time limit), or null. */
  stopped: string | null;
  /** Where the run's reads of audit events stand after this slice (attribution-early.ts; absent from a step recorded before they began here). */
  attribution?: AttributionState;
  /** The slice's time ran out: the invocation may end here. */
  spent: boolean;
  /** Only when GitLab failed to answer for a part of the scope, which the examination went on without (examine/unexamined.ts). */
  unexamined?: Unexamined;
}

export interface SliceInput {
  gitlab: GitLabClient;
  policy: Policy;
  /** The policy to compare with (--compare-policy-ref): each share is judged under both. */
  base?: Policy;
  seesAllGroups: boolean;
  concurrency: number;
  signal: AbortSignal | undefined;
  now: Date;
  frontier: ExaminationWork[];
  steps: Steps;
  /** When the whole run must stop (epoch ms): a durable execution's own time limit. */
  runEnd: number;
  progress: (tally: Tally, strays: number) => void;
  /** Sees every share judged, with its verdict (EnforceOptions.onJudged). */
  onJudged?: JudgedShareHook | undefined;
  /** Project targets the run's look-up read already (Examination.held). */
  held?: Map<number, HeldRead> | undefined;
  /** Attribution during the examination: where the run's reads stand, and what the run examined before this slice. */
  attribution: { state: AttributionState; admin: boolean; before: { projects: number; groups: number; strays: number } };
}

/** The most audit events a run keeps for strays not found yet (each a few dozen bytes). */
const MAX_UNCLAIMED = 10_000;

/**
 * Examines from `frontier` until it is done or the slice ends: its time is spent (Steps.sliceEnd),
 * or it found as many strays as a step may record. Then no request is started any more, the ones in
 * flight finish, and what is left is returned as the next frontier.
 */
export async function examineSlice(input: SliceInput): Promise<Omit<Slice, "stats">> {
  const { gitlab, policy, now, signal, steps } = input;
  const tally: Tally = emptyTally();
  const matched = emptyRuleCounts(policy);
  const strays: Slice["strays"] = [];
  const differences: Difference[] = [];
  const warnings: string[] = [];
  const frontier: ExaminationWork[] = [];
  const pause = new AbortController();
  const end = Math.min(steps.sliceEnd(), input.runEnd);
  // setTimeout fires at once past 2^31 - 1 ms (24.8 days): a slice that long is as good as no end.
  const timer = end - Date.now() < 2 ** 31 ? setTimeout(() => pause.abort(), Math.max(0, end - Date.now())) : undefined;

  // What the step will record of them, as JSON: a step records perStep findings at most, and perStepBytes of them.
  const recorded = { strays: 0, differences: 0 };
  const past = (kind: keyof typeof recorded, finding: object) => steps.perStepBytes !== undefined && (recorded[kind] += JSON.stringify(finding).length) >= steps.perStepBytes;
  // Past that the slice pauses, but the pages in flight still come: sixteen of 100 strays each, with paths of 255
  // random characters (anyone who may create a project names it), are a megabyte, past what a checkpoint holds.
  // Past half as much again, a subject is not judged in this slice but left to be read by its id in the next.
  const full = () => steps.perStepBytes !== undefined && recorded.strays + recorded.differences >= steps.perStepBytes * 1.5;
  const judge = (kind: ShareKindName, subjects: Subject[], readAt = Date.now()) => {
    const counters = KIND_COUNTERS[kind];
    const known = strays.length;
    const leave = (subject: Subject) => frontier.push(kind === "project" ? { kind: "project", list: { project: subject.id } } : { kind: "group", pending: [subject.id] });
    for (const subject of subjects) {
      if (full()) {
        leave(subject);
        continue;
      }
      // Where the slice stood before this subject, should its strays take it past what a step records (below).
      const before = steps.perStepBytes === undefined ? undefined : { tally: { ...tally }, matched: { allow: [...matched.allow], exempt: [...matched.exempt] }, strays: strays.length, differences: differences.length, recorded: { ...recorded } };
      tally[counters.subjects]++;
      let cut = 0;
      for (const share of subject.shares) {
        tally[counters.shares]++;
        const verdict = evaluateShare(policy, shareInput(kind, subject, share), now);
        input.onJudged?.({ kind, subject, share, verdict });
        if (verdict.kind === "allowed" || verdict.kind === "exempt") matched[verdict.kind === "allowed" ? "allow" : "exempt"][verdict.index]!++;
        // Every rule that covers the share matched it, not only the one that decides: one whose condition a
        // stray breaks (a level above maxAccess), one an exemption or an earlier rule shadows. None is a typo.
        if (verdict.kind !== "out-of-scope") for (const i of verdict.covering ?? []) matched.allow[i]!++;
        if (verdict.kind === "exempt") for (const i of verdict.alsoExempt ?? []) matched.exempt[i]!++;
        const difference = input.base && judgeUnderBase(input.base, policy, kind, subject, share, verdict, now);
        // A step records its differences as it does its strays: a slice holds no more of them than a step may, nor than a run plans.
        if (difference && (differences.push(difference) >= steps.perStep || differences.length > MAX_PLANNED || past("differences", difference))) pause.abort();
        if (verdict.kind !== "stray") tally[verdict.kind === "out-of-scope" ? "outOfScope" : verdict.kind]++;
        // One subject's strays past what a step holds (a project shared with a thousand groups of long names,
        // which anyone who may create groups chooses): not planned, or the step would fail on every attempt.
        else if (full()) cut++;
        else {
          // In steps, a project judged twice (moved mid-listing) is planned once: enforce/index.ts de-duplicates across slices.
          const stray = { action: plannedRemoval(kind, subject, share, verdict.reason), judgedAt: readAt };
          strays.push(stray);
          if (strays.length >= steps.perStep || input.attribution.before.strays + strays.length > MAX_PLANNED || past("strays", stray)) pause.abort();
        }
      }
      // After others: undone, and left whole to the next slice, where it may be judged first.
      if (cut && before && before.recorded.strays + before.recorded.differences > 0) {
        Object.assign(tally, before.tally);
        Object.assign(recorded, before.recorded);
        matched.allow.splice(0, Infinity, ...before.matched.allow);
        matched.exempt.splice(0, Infinity, ...before.matched.exempt);
        [strays.length, differences.length] = [before.strays, before.differences];
        leave(subject);
        continue;
      }
      // Judged first and still past it: named as not examined in full; the next run, with those planned here removed, plans the rest.
      if (cut) notExamined(exam.unexamined, new Error(`${cut} of its stray shares were not planned, more than one step of the run records (their names are long)`), listSignal, { kind, id: subject.id, path: subject.path });
    }
    if (strays.length > known) early.found(strays.slice(known).map((stray) => stray.action));
    input.progress(tally, strays.length);
  };

  // One examination failing stops the others: p-map cannot cancel mappers already running.
  const listing = new AbortController();
  // The invocation's deadline (durable) stops the listings too: then the step fails, to be attempted again.
  const listSignal = AbortSignal.any([signal, listing.signal, steps.deadline].filter((s) => s !== undefined));
  let failure: { err: unknown } | undefined;
  const examine = (work: ExaminationWork): Promise<boolean> => {
    let whole = true;
    const sink: Sink = {
      judge,
      spawn: examine,
      leave: (left) => {
        whole = false;
        frontier.push(left);
      },
    };
    return examineWork(exam, work, sink).then(
      () => whole,
      (err: unknown) => {
        failure ??= { err };
        listing.abort(err);
        return false;
      },
    );
  };
  // Each attempt of the step keeps its own ledger: what an earlier one judged, it did not record.
  const exam: Examination = {
    gitlab, policy, seesAllGroups: input.seesAllGroups, concurrency: input.concurrency, slots: slotPool(input.concurrency), signal: listSignal, pause: pause.signal, warnings, ledger: newLedger(), unexamined: noneUnexamined(), held: input.held,
  };
  const { before } = input.attribution;
  const early = earlyAttribution({
    gitlab, policy, admin: input.attribution.admin, now, state: structuredClone(input.attribution.state), slots: exam.slots, signal: listSignal, pause: pause.signal, strays: before.strays,
    budget: () => attributionBudget({ projects: before.projects + tally.projects, groups: before.groups + tally.groups, removals: before.strays + strays.length }),
    // A step records at most perStep findings: the events kept for strays still to be found are findings too.
    keep: Math.min(steps.perStep, MAX_UNCLAIMED),
  });
  let stopped: string | null = null;
  let attribution: AttributionState | undefined;
  try {
    // The listings move their own positions on: an attempt of this step must start from the frontier as given.
    await Promise.all(structuredClone(input.frontier).map(examine));
    if (failure) throw failure.err;
    attribution = await early.finish(frontier.length === 0 && !pause.signal.aborted);
  } catch (err) {
    if (!signal?.aborted) throw err;
    stopped = errorText(signal.reason);
  } finally {
    clearTimeout(timer);
  }
  // A listing still short once every sweep read its listings again (ledger.ts) was not examined in full.
  for (const [listing, short] of exam.ledger.short) listedShort(exam.unexamined, { id: listing.group, path: listing.path }, short);
  // A project judged before it changed (moved, most often) has its removals judged again first (shares/remove.ts).
  const changed = exam.ledger.changed;
  if (changed.size) for (const stray of strays) if (stray.action.kind === "project" && changed.has(stray.action.projectId)) stray.judgedAt = 0;
  const overdue = frontier.length > 0 && Date.now() >= input.runEnd;
  if (overdue && stopped === null) stopped = `the run's time limit came at ${new Date(input.runEnd).toISOString()}`;
  return { frontier, tally, matched, strays, ...(input.base ? { differences } : {}), warnings, stopped, spent: Date.now() >= steps.sliceEnd(), ...(attribution ? { attribution } : {}), ...(exam.unexamined.count ? { unexamined: exam.unexamined } : {}) };
}
