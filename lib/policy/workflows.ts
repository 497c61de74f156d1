import { DEFAULT_MAX_WORKFLOW_CHANGES } from "./policy.ts";
import type { Policy, WorkflowSelector } from "./policy.ts";

export interface WorkflowInput {
  id: string;
  name: string;
  tags: string[];
  active: boolean;
  archived: boolean;
}

export type WorkflowDecision =
  | { kind: "keep" }
  // apply=false: the policy says "report", so the change is only reported.
  | { kind: "activate" | "deactivate"; reason: string; apply: boolean };

const KEEP: WorkflowDecision = { kind: "keep" };

/**
 * What to do with one workflow. Without an n8n section nothing is governed. An archived workflow is
 * never activated (what its owner archived is not to run again; n8n 2.40 refuses it anyway), but one
 * that is active runs its triggers all the same (n8n 1.x lets anyone activate it): it is judged as any
 * other, or archiving then activating a workflow would be a lasting way around `unlisted`; and only an
 * `id:` selector keeps it, as a name or a tag is anyone's to give (a retired copy, archived out of the
 * count of a name's workflows, would otherwise run under an approved workflow's name).
 */
export function decideWorkflow(policy: Policy, wf: WorkflowInput): WorkflowDecision {
  if (policy.n8n === undefined) return KEEP;
  const { keepActive, unlisted, listedInactive } = policy.n8n.workflows;
  const selector = keepActive.find((s) => (!wf.archived || s.kind === "id") && selects(s, wf));
  if (wf.active && selector === undefined) {
    const reason = wf.archived ? "active and archived, but no keepActive id: selector names it (only its id keeps an archived workflow active)" : "active but no keepActive selector matches it";
    return { kind: "deactivate", reason, apply: unlisted === "deactivate" };
  }
  if (!wf.active && selector !== undefined && !wf.archived) {
    return {
      kind: "activate",
      reason: `inactive but keepActive selector ${JSON.stringify(selector.text)} matches it`,
      apply: listedInactive === "activate",
    };
  }
  return KEEP;
}

/**
 * The places (keepActive[i]) of the selectors that match this workflow: a selector no workflow matches is
 * most often a typo. An archived workflow is matched as decideWorkflow keeps one, by its id alone: a name
 * or a tag only an archived copy still has most often means the workflow meant was renamed, whereas an
 * id n8n lists is no typo, and taking it for one would let whoever may archive that workflow hold back
 * every deactivation of the run.
 */
export function matchingSelectors(policy: Policy, wf: WorkflowInput): number[] {
  if (policy.n8n === undefined) return [];
  return policy.n8n.workflows.keepActive.flatMap((selector, i) => ((!wf.archived || selector.kind === "id") && selects(selector, wf) ? [i] : []));
}

function selects(selector: WorkflowSelector, wf: WorkflowInput): boolean {
  switch (selector.kind) {
    case "id":
      return wf.id === selector.value;
    case "name":
      return wf.name === selector.value;
    case "tag":
      return wf.tags.includes(selector.value);
  }
}

export function maxWorkflowChanges(policy: Policy): number {
  return policy.n8n?.guard.maxChanges ?? DEFAULT_MAX_WORKFLOW_CHANGES;
}
