/** How a restore report reads to people (render/ lays it out), and how a present share differs from the removed one. */
import type { GroupShare } from "../../gitlab/index.ts";
import { accessLevelName } from "../../policy/index.ts";
import { subjectOf, type RemovedShare } from "../shares/plan.ts";
import { closingLine, count, type JobView } from "../view.ts";
import type { RestoreAction, RestoreReport } from "./summary.ts";

export const restoreView: JobView<RestoreAction, RestoreReport> = {
  title: "Warden restore",
  noun: ["removed share"],
  group: (a) => {
    const { id, path } = subjectOf(a);
    return `${a.kind} ${path} (#${id})`;
  },
  // Every action has the same columns (the renderers line them up); what happened follows the expiry.
  columns: (a) => {
    const said = a.error ?? a.note ?? (a.policy && "rule" in a.policy ? `${a.policy.verdict} by ${a.policy.rule}` : undefined);
    const level = accessLevelName(a.accessLevel) + (a.memberRoleId === undefined ? "" : ` (custom role #${a.memberRoleId})`);
    return [a.group, level, said ? `${expiryText(a.expiresAt)} — ${said}` : expiryText(a.expiresAt)];
  },
  headings: { group: "Shared project or group", columns: ["Invited group", "Level", "Expiry"] },
  closing: ({ dryRun, summary: s, actions }) =>
    closingLine({ dryRun, summary: s }, {
      planned: s.restores,
      inPolicy: s.notAllowed && !s.includeStray ? `nothing the policy allows to restore (${count(s.notAllowed, "share")} it does not allow skipped: see the warnings)` : "nothing to restore",
      plan: `${count(s.restores, "share")} to restore`,
      applyWith: "the same warden restore command with --apply",
      applied: `${s.restored} restored, ${s.alreadyPresent} already present, ${s.skipped} skipped, ${s.failed} failed`,
      notBegun: actions.filter((a) => a.status === "planned").length,
    }),
  summary: ({ summary: s }) =>
    `From ${s.from}. ${s.restores} to restore: ${s.restored} restored; ${s.alreadyPresent} already present, ${s.skipped} skipped, ${s.failed} failed; ` +
    `${s.notAllowed} not allowed by the policy${s.includeStray ? " (included: --include-stray)" : ""}; ` +
    `guard ${s.guard} (max ${s.maxRestores})`,
};

/** How a present share differs from the removed one, e.g. "developer (removed: maintainer), no expiry (removed: expires 2031-06-30)". */
export function differences(a: RemovedShare, s: GroupShare): string | undefined {
  const pairs = [
    [accessLevelName(s.group_access_level), accessLevelName(a.accessLevel)],
    [expiryText(s.expires_at), expiryText(a.expiresAt)],
    [roleText(s.member_role_id), roleText(a.memberRoleId)],
  ];
  const changed = pairs.filter(([now, then]) => now !== then).map(([now, then]) => `${now} (removed: ${then})`);
  return changed.length ? changed.join(", ") : undefined;
}

const expiryText = (date: string | null | undefined) => (date ? `expires ${date}` : "no expiry");
const roleText = (role: number | null | undefined) => (role == null ? "no custom role" : `custom role #${role}`);
