/** One change a workflows run plans, makes or reports (index.ts), apart so that apply.ts, which makes them, needs nothing else of index.ts. */
import { isActive, type Workflow } from "../../n8n/index.ts";
import type { WorkflowInput } from "../../policy/index.ts";
import { redactThenCut } from "../../redact/index.ts";

/**
 * A workflow's name as an action carries it. A name longer than n8n allows (128 characters) is cut in the report, a
 * listing of such names being no n8n's either; redacted first, so that no cut leaves a credential's fragment too
 * short to be known for one.
 */
export const reportedName = (name: string): string => redactThenCut(name, 200);

/** What the policy judges of a workflow n8n lists or reads (lib/policy/workflows.ts). */
export function workflowInput(wf: Workflow): WorkflowInput {
  return { id: wf.id, name: wf.name, tags: (wf.tags ?? []).map((tag) => tag.name), active: isActive(wf), archived: wf.isArchived === true, versioned: "activeVersionId" in wf };
}

export interface WorkflowAction {
  type: "activate" | "deactivate";
  workflowId: string;
  name: string;
  reason: string;
  /**
   * "reported": the policy says only to report this finding (`unlisted: report`, `listedInactive:
   * report`), or an activation only a `name:` selector several workflows answer to asks for
   * (name-collisions.ts). Such actions are never applied, never count against the guard and never change the
   * exit code: they are information, not work left undone.
   */
  status: "planned" | "done" | "failed" | "reported";
  error?: string;
  /** Failed, and another try would meet the same answer (refused-before.ts lastingRefusal): the next run's guard does not count it. */
  lasting?: true;
  /** Planned, and n8n refused it for good in the last run under this same policy: not counted against n8n.guard.maxChanges, tried again while the run's changes stay within it (apply.ts). */
  refusedBefore?: true;
}
