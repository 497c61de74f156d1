/** How an apply report reads to people: enforce's lines, and a summary of what became of the plan. */
import { enforceView } from "../enforce/view.ts";
import type { ShareRemoval } from "../shares/plan.ts";
import type { JobView } from "../view.ts";
import type { ApplyReport } from "./summary.ts";

export const applyView: JobView<ShareRemoval, ApplyReport> = {
  ...enforceView,
  title: "Warden apply",
  noun: ["planned removal"],
  summary: ({ summary: s, dryRun }) =>
    `${s.strays} in the plan: ${dryRun ? `${s.strays - s.alreadyGone - s.skipped - s.failed} still to remove` : `${s.removed} removed`}, ` +
    `${s.alreadyGone} already gone, ${s.skipped} skipped (changed since the plan), ${s.failed} failed; guard ${s.guard} (max ${s.maxRemovals})`,
};
