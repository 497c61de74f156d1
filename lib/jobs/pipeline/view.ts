/** How a pipeline report reads to people (render/ lays it out). */
import type { JobView } from "../view.ts";
import type { PipelineAction, PipelineReport } from "./index.ts";

export const pipelineView: JobView<PipelineAction, PipelineReport> = {
  title: "Warden pipeline",
  noun: ["pipeline request"],
  group: (a) => a.project,
  // An error first: a pipeline cancelled because it ran another commit has a link, but the why matters more.
  columns: (a) => [refText(a), a.variables.join(", ") || "no variables", a.error ?? a.webUrl ?? a.reason ?? ""],
  headings: { group: "Project", columns: ["Ref", "Variables", "Pipeline or reason"] },
  summary: ({ summary, actions: [a] }) => {
    if (!summary.allowed) return `refused: ${a?.reason ?? "not allowed by the policy"}`;
    const outcome = a?.status === "planned" ? "dry run: nothing started (--apply starts it)" : a?.error ? `${a.status}: ${a.error}` : a?.status;
    return `allowed by ${summary.rule}; ${outcome}`;
  },
};

/** "branch main @ 1a2b3c4d": what a dry run would start on; the bare ref before it was looked up. */
function refText(a: PipelineAction): string {
  return a.refKind === undefined ? a.ref : `${a.refKind} ${a.ref}${a.commit ? ` @ ${a.commit.slice(0, 8)}` : ""}`;
}
