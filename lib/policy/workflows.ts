import { DEFAULT_MAX_WORKFLOW_CHANGES } from "./policy.ts";
import type { Policy, WorkflowSelector } from "./policy.ts";

export interface WorkflowInput {
  id: string;
  name: string;
  tags: string[];
  active: boolean;
  archived: boolean;
  /** n8n keeps versions of it (`activeVersionId`, 1.123 and later): activating makes its latest saved version live. */
  versioned: boolean;
}

export type WorkflowDecision =
  | { kind: "keep" }
  // apply=false: the policy says "report", so the change is only reported.
  | { kind: "activate" | "deactivate"; reason: string; apply: boolean };

const KEEP: WorkflowDecision = { kind: "keep" };
const NOT_PUBLISHED =
  "not published: n8n would make its latest saved version live, which any editor of it may have written (publish it in n8n, or set n8n.workflows.listedInactive: publish to have Warden publish it)";

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
    const reason = `inactive but keepActive selector ${JSON.stringify(selector.text)} matches it`;
    // Where n8n keeps versions, activating publishes the latest saved one, which any editor of the workflow may
    // have written, where n8n 2.x lets only those with the right to publish choose what runs: Warden does so
    // only when the policy says so in as many words (`publish`).
    if (wf.versioned && listedInactive === "activate") return { kind: "activate", reason: `${reason}; ${NOT_PUBLISHED}`, apply: false };
    return { kind: "activate", reason, apply: listedInactive !== "report" };
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
