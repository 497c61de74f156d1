/** How a pipeline report reads to people (render.ts lays it out). */
import type { JobView } from "../view.ts";
import type { PipelineAction, PipelineReport } from "./index.ts";

export const pipelineView: JobView<PipelineAction, PipelineReport> = {
  title: "Warden pipeline",
  noun: ["pipeline request"],
  group: (a) => a.project,
  columns: (a) => [refText(a), a.variables.join(", ") || "no variables", a.webUrl ?? a.reason ?? a.error ?? ""],
  headings: { group: "Project", columns: ["Ref", "Variables", "Pipeline or reason"] },
  summary: ({ summary, actions: [a] }) => {
    if (!summary.allowed) return `refused: ${a?.reason ?? "not allowed by the policy"}`;
    return `allowed by ${summary.rule}; ${a?.status === "planned" ? "dry run: nothing started (--apply starts it)" : a?.status}`;
  },
};

/** "branch main @ 1a2b3c4d": what a dry run would start on; the bare ref before it was looked up. */
function refText(a: PipelineAction): string {
  return a.refKind === undefined ? a.ref : `${a.refKind} ${a.ref}${a.commit ? ` @ ${a.commit.slice(0, 8)}` : ""}`;
}
