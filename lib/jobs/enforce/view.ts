/** How an enforce report reads to people (render.ts lays it out). */
import { accessLevelName } from "../../policy/index.ts";
import type { ShareRemoval } from "../shares/plan.ts";
import { count, type JobView } from "../view.ts";
import type { EnforceReport } from "./summary.ts";

export const enforceView: JobView<ShareRemoval, EnforceReport> = {
  title: "Warden enforce",
  noun: ["stray share"],
  group: (a) => (a.kind === "group" ? `${a.sharedGroup} (group #${a.sharedGroupId})` : `${a.project} (#${a.projectId})`),
  columns: (a) => [
    `${a.kind} share`,
    a.group,
    accessLevelName(a.accessLevel),
    a.expiresAt ? `until ${a.expiresAt}` : "no expiry",
    // A plan attributed (or not) as a whole: the column is there for every row or for none.
    ...(a.addedBy === undefined ? [] : [addedByText(a)]),
    a.error ? `${a.reason} — ${a.error}` : a.reason,
  ],
  summary: ({ summary: s, actions }: EnforceReport) =>
    `${count(s.projects, "project")} with ${count(s.shares, "share")}, ${count(s.groups, "group")} with ${count(s.groupShares, "group share")}; ` +
    `of all shares ${s.allowed} allowed, ${s.exempt} exempt, ${s.strays} stray (${count(actions.filter((a) => a.kind === "group").length, "group share")}); ` +
    `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals}); ` +
    `${count(s.groupReads, "group read")} (GET /groups/:id)`,
};

/** "added by Jane Doe 2026-11-20", or why no one is named: "added by ? (not visible)". */
function addedByText(a: ShareRemoval): string {
  return a.addedBy ? `added by ${a.addedBy.name} ${a.addedBy.at.slice(0, 10)}` : `added by ? (${a.attribution ?? "not recorded"})`;
}
