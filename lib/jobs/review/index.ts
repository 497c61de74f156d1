/**
 * The access review (`warden report shares`): every share in scope, allowed, exempt and stray, with
 * the rule that allows it or why it is stray, and who added it and when. Not a second examination:
 * enforce's own, as a dry run, with a hook that sees each share as it is judged (EnforceOptions.onJudged),
 * so the review sends exactly the examination's reads, plus attribution.
 *
 * Attribution is done once for every listed share here, with enforce's own (strays only) turned off
 * for the run: each group's audit events are then listed once, newest first within
 * gitlab.attribution.days, for all the shares they record; listing allowed shares adds only the groups
 * that record no stray, never a second listing of one. The summary and stats say what it cost.
 *
 * Memory: the listed shares are held once (they must be sorted, and attributed before the first is
 * written), at most MAX_LISTED of them; the front end writes CSV and JSON from that one list row by row
 * (render/review.ts).
 */
import { attributeRemovals, attributionBudget, enforce } from "../enforce/index.ts";
import { makeReport } from "../envelope.ts";
import type { JudgedShare } from "../enforce/summary.ts";
import { accessLevelName, strayHandling, type Policy } from "../../policy/index.ts";
import { byKindAndPath, shareFields, shareKey, subjectOf, type ShareRemoval } from "../shares/plan.ts";
import { countStatus } from "../report/index.ts";
import type { ReviewedShare, ReviewNotice, ReviewOptions, ReviewReport } from "./summary.ts";

/**
 * The most shares one review lists: each is held until written, a few hundred bytes, so a GitLab (or a proxy)
 * listing shares without end would fill the heap and end the process with no report. Past it the examination
 * stops (the review is incomplete) and the shares listed so far are written.
 */
export const MAX_LISTED = 300_000;

export async function reviewShares(opts: ReviewOptions): Promise<ReviewReport> {
  const { gitlab, policy, signal } = opts;
  const full = new AbortController();
  const startedAt = Date.now();
  const now = opts.now ?? new Date();
  const before = gitlab.requestCounts();
  // Keyed by share: a project moved mid-listing is judged twice, and listed once.
  const listed = new Map<string, ReviewedShare>();
  let admin = false;
  const examined = await enforce({
    gitlab,
    policy: withoutAttribution(policy),
    now,
    signal: signal ? AbortSignal.any([signal, full.signal]) : full.signal,
    ...(opts.targets ? { targets: opts.targets } : {}),
    ...(opts.listConcurrency ? { listConcurrency: opts.listConcurrency } : {}),
    onJudged: (judged) => {
      const row = reviewed(policy, judged);
      if (row) listed.set(shareKey(row), row);
      if (listed.size > MAX_LISTED && !full.signal.aborted) full.abort(new Error(`more than ${MAX_LISTED} shares listed, more than one review holds: review a part of the scope with --target`));
    },
    onProgress: (p) => p.phase === "examining" && opts.onProgress?.({ projects: p.projects, groups: p.groups, shares: listed.size }),
    onTokenChecked: (token) => (admin = token.admin),
  });
  // In the plan's order (by kind, subject, invited group).
  const rows = [...listed.values()].slice(0, MAX_LISTED).sort(byKindAndPath);
  listed.clear();
  const notices = strayNotices(policy, examined.actions);
  for (const row of rows) {
    const notice = row.status === "stray" ? notices.get(shareKey(row)) : undefined;
    if (notice) row.notice = notice;
  }

  const days = policy.gitlab?.attribution.days ?? 0;
  const warnings = [...examined.warnings];
  let attributionGroups = 0;
  let auditRequests = 0;
  if (rows.length && !signal?.aborted) {
    const result = await attributeRemovals({ gitlab, policy, admin, now, actions: rows, concurrency: opts.listConcurrency ?? 16, signal, budget: attributionBudget({ projects: examined.summary.projects, groups: examined.summary.groups, removals: rows.length }) });
    result.attributed.forEach((a, i) => Object.assign(rows[i]!, a));
    warnings.push(...result.warnings);
    auditRequests = result.auditRequests;
    // Where GitLab records each share (attribution.ts): the sharing group for a group share, the invited group for a project share.
    attributionGroups = days === 0 ? 0 : new Set(rows.map((r) => (r.kind === "group" ? r.sharedGroupId : r.groupId))).size;
  }
  const after = gitlab.requestCounts();
  const report: ReviewReport = makeReport({ job: "review", dryRun: true, policy, gitlab, startedAt }, {
    summary: {
      projects: examined.summary.projects,
      groups: examined.summary.groups,
      listed: rows.length,
      allowed: countStatus(rows, "allowed"),
      exempt: countStatus(rows, "exempt"),
      strays: countStatus(rows, "stray"),
      attributed: rows.filter((r) => r.addedBy).length,
      attributionDays: days,
      attributionGroups,
      complete: examined.summary.complete,
    },
    // Filled in below: makeReport copies each action to name its level, which the rows already do.
    actions: [],
    stats: {
      requests: after.requests - before.requests,
      retries: after.retries - before.retries,
      rateLimited: after.rateLimited - before.rateLimited,
      pages: after.pages - before.pages,
      auditRequests,
      durationMs: Date.now() - startedAt,
      ...(examined.stats.lowestConcurrency === undefined ? {} : { lowestConcurrency: examined.stats.lowestConcurrency }),
    },
    // Enforce's guard speaks of removals, which a review never makes.
    warnings: warnings.filter((w) => !w.startsWith("guard: ")),
  });
  report.actions = rows;
  return report;
}

/**
 * Each stray's notice as enforce's dry run read it from the notices project (lib/jobs/notices/: the open
 * issue, or the due date one opened now would get), where the policy notifies of that share: under
 * onStray remove or report an open notice is only left to close, and says nothing of the share's fate.
 */
function strayNotices(policy: Policy, strays: readonly ShareRemoval[]): Map<string, ReviewNotice> {
  const notices = new Map<string, ReviewNotice>();
  for (const stray of strays) {
    if (!stray.notice || strayHandling(policy, subjectOf(stray).path).onStray !== "notify") continue;
    const { closed: _, ...notice } = stray.notice;
    notices.set(shareKey(stray), notice);
  }
  return notices;
}

/** The policy with attribution off: the review attributes every share itself, once. */
function withoutAttribution(policy: Policy): Policy {
  return policy.gitlab ? { ...policy, gitlab: { ...policy.gitlab, attribution: { days: 0 } } } : policy;
}

/** A judged share as the review lists it; undefined outside the scope (not listed: enforce warns of them). */
function reviewed(policy: Policy, { kind, subject, share, verdict }: JudgedShare): ReviewedShare | undefined {
  if (verdict.kind === "out-of-scope") return undefined;
  const { reason: _, ...fields } = shareFields(share, "");
  const head = kind === "project" ? { kind, projectId: subject.id, project: subject.path } : { kind, sharedGroupId: subject.id, sharedGroup: subject.path };
  return { ...head, ...fields, accessLevelName: accessLevelName(fields.accessLevel), status: verdict.kind, rule: ruleOf(policy, verdict) } as ReviewedShare;
}

function ruleOf(policy: Policy, verdict: Exclude<JudgedShare["verdict"], { kind: "out-of-scope" }>): string {
  if (verdict.kind === "stray") return verdict.reason;
  const until = verdict.kind === "exempt" ? policy.gitlab?.shares.exempt[verdict.index]?.until : undefined;
  return until ? `${verdict.rule} (until ${until})` : verdict.rule;
}
