/**
 * The enforce job: examine what is in scope — the projects with their shares, the groups with the
 * shares they make — judge each share with the pure policy, plan the removal of every stray one, and
 * (only when asked, and only if the one guard over both kinds holds) remove them. Memory grows with the
 * strays found, not with the projects or groups examined.
 */
import { isTrue } from "../../gitlab/index.ts";
import { addRuleCounts, emptyRuleCounts, maxRemovals, unmatchedRules, type RuleCounts } from "../../policy/index.ts";
import { awaitedLater } from "../awaited-later.ts";
import { makeReport } from "../envelope.ts";
import { auditedUnder, concurrencyStat, countStatus, errorText, type AuditSink } from "../report/index.ts";
import { byKindAndPath, shareKey, type ShareRemoval } from "../shares/plan.ts";
import { direct, stepSignal, type Steps } from "../steps.ts";
import { count } from "../view.ts";
import { noticeReport, settleNotices, sortStrays } from "../notices/index.ts";
import { applyAttribution, attributeWithin, attributionBudget } from "./attribution.ts";
import { emptyAttributionState } from "./attribution-reads.ts";
import { comparisonOf, scopeWarning, type Difference } from "./compare.ts";
import { beginExamination } from "./examine/examiners.ts";
import { ScopeError, scopeRoots } from "./examine/scope.ts";
import { checkTargets, findTargets, targetedWarning, targetedWork } from "./examine/targets.ts";
import { missingWarning, namesNothing, ruleName, sweptRules, sweptWarning, unmatchedWarnings } from "./rules.ts";
import { removeInSteps } from "./removal-steps.ts";
import { examineSlice, type Slice } from "./slice.ts";
import { addCounts, DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY, emptyTally, statsSince, sumStats, attributionStat, type EnforceOptions, type EnforceReport, type StepStats, type Tally } from "./summary.ts";

/**
 * The job in steps (lib/jobs/steps.ts): the token check and the scope; the examination, in slices
 * that each end on where the listing stands and the strays found (never the projects examined); the
 * guard, judged on the whole plan; the removals, in batches. Run directly it is one slice and one
 * batch. Nothing is kept between steps but what they return, so a durable execution resumes it.
 */
export async function enforce(opts: EnforceOptions, steps: Steps = direct): Promise<EnforceReport> {
  const { gitlab, policy, signal, compareWith: base } = opts;
  if (base && opts.apply) throw new ScopeError("a comparison of policies (--compare-policy-ref) never removes: run it without --apply");
  // Before any request: without the section there is nothing to govern, and an empty plan would read as "in policy".
  if (policy.gitlab === undefined) throw new ScopeError("the policy has no gitlab section: enforce has nothing to govern (add gitlab.shares, and gitlab.scope to limit it)");
  // A run limited to part of the scope: each target is checked against the scope before any request.
  const targets = opts.targets && checkTargets(policy, opts.targets);
  const limit = maxRemovals(policy);
  const concurrency = opts.listConcurrency ?? DEFAULT_LIST_CONCURRENCY;
  // Inside a step, requests stop with the run's signal or the invocation's deadline (durable, lib/jobs/steps.ts).
  const inStep = stepSignal(steps, signal);
  const measured = async <T extends object>(run: () => Promise<T>): Promise<T & { stats: StepStats }> => {
    const before = gitlab.requestCounts();
    const result = await run();
    return { ...result, stats: statsSince(gitlab, before) };
  };

  const begun = await steps.step("begin", () =>
    measured(async () => {
      const startedAt = Date.now();
      const now = (opts.now ?? new Date()).toISOString();
      const warnings: string[] = [];
      // The token check and the scope look-up go out together (reads: after a refused token the Lambda
      // may read a rotated secret and run again, functions/lib/runs/run-job.ts); the token's error comes first.
      const scope = awaitedLater(scopeRoots(gitlab, policy, inStep));
      const found = targets && awaitedLater(findTargets(gitlab, policy, targets, concurrency, inStep, warnings));
      const user = await gitlab.currentUser(inStep);
      const seesAllGroups = isTrue(user.is_admin) || isTrue(user.is_auditor);
      if (!seesAllGroups) {
        warnings.push(
          `the token (${user.username}) is not an administrator or auditor: GitLab lists only the shares (of projects and of groups) with groups it can see, ` +
            "so shares with other groups were neither checked nor removed; and GitLab removes a group's share only for a token with Owner on that group " +
            "(it answers success all the same: Warden reads the group again to tell)",
        );
      }
      const roots = await scope;
      const part = await found;
      if (part) warnings.push(targetedWarning(part));
      const frontier = part ? targetedWork(part, roots, (trees) => beginExamination(trees, seesAllGroups)) : beginExamination(roots, seesAllGroups);
      return { startedAt, now, seesAllGroups, admin: isTrue(user.is_admin), warnings, frontier };
    }),
  );
  const now = new Date(begun.now);
  const runEnd = begun.startedAt + (opts.runLimitMs ?? Infinity);
  const stats = [begun.stats];
  const warnings = [...begun.warnings];
  const tally: Tally = emptyTally();
  const found: Slice["strays"] = [];
  const differences: Difference[] = [];
  // A project moved between partitions mid-listing is listed twice; its strays are planned once.
  const planned = new Set<string>();
  // Unknown (undefined) once a step recorded by code that did not count them is replayed.
  let matched: RuleCounts | undefined = emptyRuleCounts(policy);
  let complete = true;
  // Where the reads of audit events begun in the examination's idle slots stand (attribution-early.ts).
  let attribution = emptyAttributionState();

  let frontier = begun.frontier;
  for (let n = 1; frontier.length; n++) {
    const slice = await steps.step(`examine ${n}`, () =>
      measured(() =>
        examineSlice({
          gitlab, policy, ...(base ? { base } : {}), seesAllGroups: begun.seesAllGroups, concurrency, signal, now, frontier, steps, runEnd, onJudged: opts.onJudged,
          attribution: { state: attribution, admin: begun.admin === true, before: { projects: tally.projects, groups: tally.groups, strays: found.length } },
          // Counts so far, as pages arrive (run directly, this is the whole examination).
          progress: (t, strays) => opts.onProgress?.({ phase: "examining", projects: tally.projects + t.projects, groups: tally.groups + t.groups, strays: found.length + strays }),
        }),
      ),
    );
    addCounts(tally, slice.tally);
    matched = matched && slice.matched && addRuleCounts(matched, slice.matched);
    for (const stray of slice.strays) {
      const key = shareKey(stray.action);
      if (planned.has(key)) continue;
      planned.add(key);
      found.push(stray);
    }
    differences.push(...(slice.differences ?? []));
    warnings.push(...slice.warnings);
    stats.push(slice.stats);
    frontier = slice.frontier;
    attribution = slice.attribution ?? attribution;
    if (slice.stopped !== null) {
      complete = false;
      warnings.push(`stopped while listing after ${count(tally.projects, "project")} (${slice.stopped}), with ${count(tally.groups, "group")} read: the plan is incomplete and nothing was removed`);
      break;
    }
    if (frontier.length) await steps.pause(`examined ${n}`, slice.spent);
  }
  // Found in whatever order the listings answered; reported (and removed) in a stable one.
  found.sort((a, b) => byKindAndPath(a.action, b.action));
  const plan = found.map((stray) => stray.action);
  if (tally.outOfScope) {
    warnings.push(`${count(tally.outOfScope, "share")} of examined projects or groups ${tally.outOfScope === 1 ? "is" : "are"} outside the policy's scope (a path not under a scope group): they were left alone`);
  }

  // Strays the policy does not remove at once (onStray notify, report): their notices say which are removed now.
  const noticing = { gitlab, policy, now, plan, max: limit, concurrency, signal: inStep, measured };
  const sorted = base ? undefined : await sortStrays({ ...noticing, whole: complete && !targets }, steps);
  warnings.push(...(sorted?.warnings ?? []));
  stats.push(...(sorted?.stats ?? []));
  const [removals, notify] = [countStatus(plan, "planned"), countStatus(plan, "notify")];

  // Only a complete examination of the whole scope shows that a rule matched nothing (targets.ts); a
  // targeted one shows only that a rule naming a literal path the instance does not have is a typo (rules.ts).
  const unmatched = complete && matched && !targets ? unmatchedRules(policy, matched, now) : [];
  if (unmatched.length) {
    const named = await steps.step("rules", () => measured(async () => ({ warnings: await unmatchedWarnings(gitlab, policy, unmatched, inStep) })));
    warnings.push(...named.warnings);
    stats.push(named.stats);
  }
  // Counts unknown (a step replayed from older code): every rule is looked at, which costs only reads.
  const untouched = targets && complete ? unmatchedRules(policy, matched ?? emptyRuleCounts(policy), now) : [];
  const typos = untouched.length ? await steps.step("literal rules", () => measured(async () => ({ missing: await namesNothing(gitlab, policy, untouched, inStep) }))) : undefined;
  if (typos) {
    warnings.push(...typos.missing.map((named) => missingWarning(policy, named)));
    stats.push(typos.stats);
  }
  // And the globs the last full run under this same policy found matching nothing (rules.ts), if this run matched none either.
  const swept = sweptRules(policy, opts.lastSweep, untouched);
  warnings.push(...swept.map((rule) => sweptWarning(policy, opts.lastSweep!, rule)));
  const named = new Set([...(typos?.missing ?? []).map(({ rule }) => rule), ...swept].map(ruleName));
  const refused = unmatched.length ? unmatched : untouched.filter((rule) => named.has(ruleName(rule)));
  const refuse = refused.length > 0 && policy.gitlab.guard.unmatchedRules === "refuse";
  // The guard counts removals; the same limit bounds the notices a run opens (a policy's typo must not open thousands of issues).
  const tripped = removals > limit || notify > limit || (refuse && opts.apply === true);
  if (removals > limit) {
    warnings.push(`guard: ${count(removals, "removal")} planned (project and group shares together), more than gitlab.guard.maxRemovals (${limit}); nothing was removed`);
  }
  if (notify > limit) warnings.push(`guard: ${count(notify, "notice")} to open, more than gitlab.guard.maxRemovals (${limit}), which bounds the notices a run opens too; nothing was changed`);
  if (refuse) {
    const which = `${count(refused.length, "rule")} matched nothing (${refused.map(ruleName).join(", ")}), and gitlab.guard.unmatchedRules is refuse`;
    const fix = "correct or remove each, or set gitlab.guard.unmatchedRules: warn to accept them";
    warnings.push(opts.apply ? `guard: ${which}; nothing was removed (${fix})` : `guard: ${which}: an applying run would remove nothing (${fix})`);
  }
  // Who added each stray, only where the run may remove it: after the guard, never for a plan it refused
  // or an applying run's incomplete one, and within a budget of requests (a run stopped by its signal has no time for it);
  // reading on from where the examination's idle slots left the reads (attribution-early.ts).
  const attributed = plan.length && !tripped && (complete || !opts.apply) && !signal?.aborted
    ? await steps.step("attribute", () => measured(() => attributeWithin({ gitlab, policy, admin: begun.admin === true, now, actions: plan, concurrency, signal: inStep, state: attribution, budget: attributionBudget({ projects: tally.projects, groups: tally.groups, removals: plan.length }) })))
    : undefined;
  if (attributed) {
    applyAttribution(plan, attributed.attributed);
    warnings.push(...attributed.warnings);
    stats.push(attributed.stats);
  }
  if (!tripped && opts.apply && complete) {
    // Each settled removal writes its audit line (a group share's confirmation, a second): the progress counts the first.
    let settled = 0;
    const { onProgress } = opts;
    const audited = auditedUnder(opts.audit, policy);
    const audit: AuditSink | undefined = onProgress
      ? { info: (message, fields) => (audited?.info(message, fields), fields?.["confirmation"] || onProgress({ phase: "removing", done: Math.min(++settled, removals), total: removals })) }
      : audited;
    const removed = await removeInSteps({
      gitlab, policy, now, found, concurrency: opts.concurrency ?? DEFAULT_REMOVAL_CONCURRENCY, maxPlanAgeMs: opts.maxPlanAgeMs ?? 60_000, signal, audit, runEnd, measured,
    }, steps);
    plan.splice(0, plan.length, ...removed.plan);
    warnings.push(...removed.warnings);
    stats.push(...removed.stats);
    if (removed.stopped) complete = false;
    const left = countStatus(plan, "planned");
    if (left) {
      const why = signal?.aborted ? errorText(signal.reason) : `the run's time limit came at ${new Date(runEnd).toISOString()}`;
      warnings.push(`stopped before ${left} of ${count(removals, "removal")} (${why}); the next run picks them up`);
    }
    const written = sorted && !removed.stopped ? await settleNotices({ ...noticing, audit: audited }, sorted, steps) : undefined;
    warnings.push(...(written?.warnings ?? []));
    if (written) stats.push(written.stats);
  }

  const scopeChanged = base && scopeWarning(base, policy);
  if (scopeChanged) warnings.push(scopeChanged);
  const { outOfScope: _, ...counted } = tally;
  const { groupReads, ...requestStats } = sumStats(stats);
  const noticed = noticeReport(policy, plan, sorted);
  const finishedAt = (await steps.step("ended", async () => ({ at: Date.now() }))).at;
  const report: EnforceReport = makeReport({ job: "enforce", dryRun: !opts.apply, policy, gitlab: gitlab.http, startedAt: begun.startedAt, finishedAt }, {
    summary: {
      ...counted,
      groupReads,
      strays: plan.length,
      removed: countStatus(plan, "done"),
      alreadyGone: countStatus(plan, "already-gone"),
      skipped: countStatus(plan, "skipped"),
      failed: countStatus(plan, "failed"),
      maxRemovals: limit,
      guard: tripped ? "tripped" : "ok",
      complete,
      matched: matched ?? null,
      ...(noticed.summary && { notices: noticed.summary }),
    },
    actions: plan,
    stats: { ...requestStats, auditRequests: attributed?.auditRequests ?? attribution.requests, ...attributionStat(attributed), ...concurrencyStat([gitlab.http]), durationMs: finishedAt - begun.startedAt },
    warnings,
  });
  if (noticed.notices) report.notices = noticed.notices;
  // Its removals carry the authors the plan's attribution found (the same shares).
  return base ? { ...report, comparison: comparisonOf(base, differences, report.actions) } : report;
}

// Enforce's face for the other jobs, beside the run itself: the review attributes as enforce does, the watch reads enforce's scope.
export { attributeRemovals, attributionBudget } from "./attribution.ts";
export { ScopeError, scopeRoots } from "./examine/scope.ts";
