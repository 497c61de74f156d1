/** How an apply report reads to people: enforce's lines (shares/view.ts), and a summary of what became of the plan. */
import type { ShareRemoval } from "../shares/plan.ts";
import { removalRows } from "../shares/view.ts";
import { closingLine, count, type JobView } from "../view.ts";
import type { ApplyReport } from "./summary.ts";

export const applyView: JobView<ShareRemoval, ApplyReport> = {
  ...removalRows,
  title: "Warden apply",
  noun: ["planned removal"],
  summary: ({ summary: s, dryRun }) =>
    `${s.strays} in the plan: ${dryRun ? `${s.strays - s.alreadyGone - s.skipped - s.failed} still to remove` : `${s.removed} removed`}, ` +
    `${s.alreadyGone} already gone, ${s.skipped} skipped (changed since the plan), ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals})`,
  closing: ({ dryRun, summary: s, actions }: ApplyReport) => {
    const still = actions.filter((a) => a.status === "planned").length;
    return closingLine({ dryRun, summary: s }, {
      planned: dryRun ? still : s.strays,
      inPolicy: "nothing the plan lists is still there as planned",
      plan: `${count(still, "share")} of the plan's ${s.strays} still to remove`,
      applyWith: "warden apply PLAN --apply",
      applied: `${s.removed} removed, ${s.alreadyGone} already gone, ${s.skipped} skipped, ${s.failed} failed`,
      notBegun: dryRun ? 0 : still,
    });
  },
};
