/** How an enforce report reads to people (render.ts lays it out). */
import { accessLevelName } from "../../policy/index.ts";
import type { ShareRemoval } from "../shares/plan.ts";
import { closingLine, count, type JobView } from "../view.ts";
import type { EnforceProgress, EnforceReport } from "./summary.ts";

export const enforceView: JobView<ShareRemoval, EnforceReport> = {
  title: "Warden enforce",
  noun: ["stray share"],
  group: (a) => (a.kind === "group" ? `${a.sharedGroup} (group #${a.sharedGroupId})` : `${a.project} (#${a.projectId})`),
  columns: (a) => [
    `${a.kind} share`,
    a.group,
    accessLevelName(a.accessLevel),
    a.expiresAt ? `until ${a.expiresAt}` : "no expiry",
    addedByText(a),
    a.error ? `${a.reason} — ${a.error}` : a.reason,
  ],
  headings: { group: "Project or group", columns: ["Share", "Invited group", "Level", "Expiry", "Added by", "Reason"] },
  tally: { title: "Stray shares by invited group", of: (a) => a.group },
  closing: ({ dryRun, summary: s, actions }: EnforceReport) => {
    const groupShares = actions.filter((a) => a.kind === "group").length;
    return closingLine({ dryRun, summary: s }, {
      planned: actions.length,
      inPolicy: "every share in scope is allowed or exempt",
      plan: `${count(actions.length, "share")} to remove (${actions.length - groupShares} project, ${groupShares} group)`,
      // The plan --apply removes is made afresh; a plan saved with --out is applied as reviewed.
      applyWith: "warden enforce --apply (or warden apply PLAN, for a plan saved with --out PLAN)",
      applied: `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed`,
      notBegun: actions.filter((a) => a.status === "planned").length,
    });
  },
  summary: ({ summary: s, actions }: EnforceReport) =>
    `${count(s.projects, "project")} with ${count(s.shares, "share")}, ${count(s.groups, "group")} with ${count(s.groupShares, "group share")}; ` +
    `of all shares ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray (${count(actions.filter((a) => a.kind === "group").length, "group share")}); ` +
    `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals}); ` +
    `${count(s.groupReads, "group read")} (GET /groups/:id)`,
};

/**
 * "added by Jane Doe 2026-11-20", or why no one is named: "added by ? (not visible)"; a removal not
 * attributed at all (the run stopped first) says so, so that every row has the column.
 */
function addedByText(a: ShareRemoval): string {
  if (a.addedBy === undefined) return "not attributed";
  return a.addedBy ? `added by ${a.addedBy.name} ${a.addedBy.at.slice(0, 10)}` : `added by ? (${a.attribution ?? "not recorded"})`;
}

/** The progress line: "examining 1,204 / ~2,000 projects, 31 groups: 12 stray shares", "removing 12 / 94". */
export function enforceProgressText(p: EnforceProgress): string {
  const n = (x: number) => x.toLocaleString("en-US");
  if (p.phase === "removing") return `removing ${n(p.done)} / ${n(p.total)}`;
  // A total counted at the start drifts as projects are created or moved: approximate.
  const projects = p.totalProjects === undefined ? `${n(p.projects)} ${p.projects === 1 ? "project" : "projects"}` : `${n(p.projects)} / ~${n(p.totalProjects)} projects`;
  return `examining ${projects}, ${n(p.groups)} ${p.groups === 1 ? "group" : "groups"}: ${count(p.strays, "stray share")}`;
}
