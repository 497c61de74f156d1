/** How an enforce report reads to people (render/ lays it out). */
import { noticeDue, noticesLine } from "../notices/index.ts";
import { COMPARISON_SECTIONS, type ComparisonSection, type PolicyComparison } from "../shares/comparison.ts";
import { subjectOf, type NoticeRef, type ShareRemoval } from "../shares/plan.ts";
import { removalRows } from "../shares/view.ts";
import { closingLine, count, incompleteNote, type JobView } from "../view.ts";
import type { EnforceProgress, EnforceReport } from "./summary.ts";

export const enforceView: JobView<ShareRemoval, EnforceReport> = {
  title: "Warden enforce",
  noun: ["stray share"],
  ...removalRows,
  closing: ({ dryRun, summary: s, actions }: EnforceReport) => {
    // Under onStray notify or report some strays are not removals: they are counted in the notices line.
    const removals = actions.filter(isRemoval);
    const groupShares = removals.filter((a) => a.kind === "group").length;
    const n = s.notices;
    const line = closingLine({ dryRun, summary: s }, {
      planned: removals.length + (n ? n.toOpen + n.opened + n.toClose + n.closed : 0),
      inPolicy: s.strays === 0 ? "every share in scope is allowed or exempt" : "no stray share is due for removal, and no notice is to open or close",
      plan: `${count(removals.length, "share")} to remove (${removals.length - groupShares} project, ${groupShares} group)`,
      // The plan --apply removes is made afresh; a plan saved with --out is applied as reviewed.
      applyWith: "warden enforce --apply (or warden apply PLAN, for a plan saved with --out PLAN)",
      applied: `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed`,
      notBegun: actions.filter((a) => a.status === "planned" || a.status === "notify").length,
    });
    return n ? `${line} ${noticesLine(n, dryRun)}` : line;
  },
  // The notices line (the closing line says it too, which chat messages do not show), and the shares due within a day.
  highlight: ({ actions, summary, dryRun }: EnforceReport) => {
    if (!summary.notices) return undefined;
    const soon = actions.filter((a) => a.status === "pending" && a.notice?.daysLeft != null && a.notice.daysLeft <= 1);
    const lines = soon.map((a) => `${a.kind} ${subjectOf(a).path} shared with ${a.group}: ${noticeName(a.notice!)}, due ${a.notice!.dueDate}`);
    const due = soon.length ? ` Due within a day: ${count(soon.length, "share")} (removed by the first run on its due date):` : "";
    return { title: `${noticesLine(summary.notices, dryRun)}${due}`, lines };
  },
  summary: ({ summary: s, actions }: EnforceReport) =>
    `${count(s.projects, "project")} with ${count(s.shares, "share")}, ${count(s.groups, "group")} with ${count(s.groupShares, "group share")}; ` +
    `of all shares ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray (${count(actions.filter((a) => a.kind === "group").length, "group share")}); ` +
    `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals}); ` +
    `${count(s.groupReads, "group read")} (GET /groups/:id)`,
};

/** A pending stray's notice: its open one, or where a person closed them all (none is opened), the closed one its date counts from. */
const noticeName = (n: NoticeRef): string => (n.iid === undefined && n.earlier ? `counted from closed notice #${n.earlier.iid}` : `notice #${n.iid}`);

/** The statuses of a stray the run removes (or would): not one handled by a notice (or reported) instead. */
function isRemoval(a: ShareRemoval): boolean {
  if (a.status === "failed") return a.notice === undefined || a.notice.iid !== undefined || noticeDue(a.notice);
  return !NOTICE_STATUSES.has(a.status);
}

const NOTICE_STATUSES: ReadonlySet<string> = new Set(["notify", "noticed", "pending", "reported"]);

/**
 * 1234567 as "1,234,567". Not toLocaleString or Intl.NumberFormat: their first call maps ICU's locale
 * data into the process, 8 MB of the CLI's peak memory for a comma.
 */
const grouped = (x: number): string => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** The progress line: "examining 1,204 / ~2,000 projects, 31 groups: 12 stray shares", "removing 12 / 94". */
export function enforceProgressText(p: EnforceProgress): string {
  if (p.phase === "removing") return `removing ${grouped(p.done)} / ${grouped(p.total)}`;
  // A total counted at the start drifts as projects are created or moved: approximate.
  const projects = p.totalProjects === undefined ? `${grouped(p.projects)} ${p.projects === 1 ? "project" : "projects"}` : `${grouped(p.projects)} / ~${grouped(p.totalProjects)} projects`;
  return `examining ${projects}, ${grouped(p.groups)} ${p.groups === 1 ? "group" : "groups"}: ${count(p.strays, "stray share")}`;
}

/** A report of a comparison of policies (enforce --compare-policy-ref). */
export type ComparedReport = EnforceReport & { comparison: PolicyComparison };

const SECTION_TITLES: Record<ComparisonSection, string> = {
  newlyRemoved: "Newly removed: stray under the proposed policy only",
  noLongerRemoved: "No longer removed: stray under the base policy only",
  exemptionChanged: "Exemption changed: an exemption newly applies or lapses",
};

/** How a comparison reads (render/comparison.ts lays it out): a headline, then each section's rows as enforce shows a removal. */
export const comparisonView = {
  sections: COMPARISON_SECTIONS.map((key) => ({ key, title: SECTION_TITLES[key] })),
  /** "Merging this policy change would newly remove 3 shares, stop removing 2, change 1 exemption." */
  headline({ comparison: c, summary }: ComparedReport): string {
    const incomplete = incompleteNote(summary);
    const [removed, kept, changed] = COMPARISON_SECTIONS.map((s) => c[s].length) as [number, number, number];
    // Settings no share shows (who may run pipelines or apply, the guard): named, for the reviewer to read in the diff.
    const others = c.otherChanges?.length ? `, and changes ${c.otherChanges.join(", ")}: review them in the diff` : "";
    if (removed + kept + changed === 0) return `Merging this policy change would change no share's fate${incomplete}${others}.`;
    return `Merging this policy change would newly remove ${count(removed, "share")}, stop removing ${kept}, change ${count(changed, "exemption")}${incomplete}${others}.`;
  },
  compared: ({ comparison: c }: ComparedReport) => `compared with the policy at ${c.baseRef} (commit ${c.baseCommitId.slice(0, 8)})`,
  headings: [enforceView.headings.group, ...enforceView.headings.columns],
  row: (a: ShareRemoval) => [enforceView.group(a), ...enforceView.columns(a)],
};
