/** How a pipeline report reads to people (render.ts lays it out). */
import type { JobView } from "../view.ts";
import type { PipelineAction, PipelineReport } from "./index.ts";

export const pipelineView: JobView<PipelineAction, PipelineReport> = {
  title: "Warden pipeline",
  noun: "pipeline request",
  group: (a) => a.project,
  columns: (a) => [a.ref, a.variables.join(", ") || "no variables", a.webUrl ?? a.reason ?? a.error ?? ""],
  summary: ({ summary, actions }) =>
    summary.allowed ? `allowed by ${summary.rule}; ${actions[0]?.status}` : `refused: ${actions[0]?.reason ?? "not allowed by the policy"}`,
};
