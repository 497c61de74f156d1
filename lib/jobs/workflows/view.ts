/** How a workflows report reads to people (render/ lays it out). */
import { closingLine, count, type JobView } from "../view.ts";
import type { WorkflowAction, WorkflowsReport } from "./index.ts";

export const workflowsView: JobView<WorkflowAction, WorkflowsReport> = {
  title: "Warden workflows",
  noun: ["workflow out of policy", "workflows out of policy"],
  group: (a: WorkflowAction) => `${a.name} (${a.workflowId})`,
  // Every action has the same columns (the renderers line them up); why a change failed follows why it was planned.
  columns: (a: WorkflowAction) => [a.type, a.error ? `${a.reason} — ${a.error}` : a.reason],
  headings: { group: "Workflow", columns: ["Change", "Reason"] },
  closing: ({ dryRun, summary: s, actions }: WorkflowsReport) => {
    const planned = (type: WorkflowAction["type"]) => actions.filter((a) => a.type === type && a.status !== "reported").length;
    return closingLine({ dryRun, summary: s }, {
      planned: s.changes,
      inPolicy: `every workflow is as the policy says${s.reported ? ` (${s.reported} only reported)` : ""}`,
      plan: `${count(s.changes, "change")} (${planned("activate")} to activate, ${planned("deactivate")} to deactivate)`,
      applyWith: "warden workflows --apply",
      applied: `${s.applied} applied, ${s.failed} failed`,
      notBegun: actions.filter((a) => a.status === "planned").length,
    });
  },
  summary: ({ summary: s }: WorkflowsReport) =>
    `${count(s.workflows, "workflow")} (${s.active} active, ${s.archived} archived, never activated): ${count(s.changes, "change")} planned, ${s.reported} only reported; ` +
    `${s.applied} applied, ${s.failed} failed; guard ${s.guard} (max ${s.maxChanges}); ` +
    (s.apiGeneration === "not checked" ? "n8n API generation not checked (learned at the first change)" : `n8n ${s.apiGeneration}.x`),
};
