/**
 * `name:` selectors that more than one workflow answers to. Anyone who may create a workflow may give it
 * a listed workflow's name, and Warden cannot tell which one the policy meant: a workflow activated for
 * such a selector alone would be someone's own, run because it copied a name. So an activation that
 * only colliding names ask for is reported, not made, and each collision is a warning; active ones
 * are kept (deactivating would let a copy switch the real one off). An `id:` is no one else's to take.
 */
import type { WorkflowSelector } from "../../policy/index.ts";
import { count } from "../view.ts";

/** An activation as the job plans it (index.ts's WorkflowAction): its reason and status are rewritten here. */
interface Activation {
  reason: string;
  status: string;
}

/** Fed every workflow as it is listed; settled once the listing is done. */
export class NameCollisions {
  /** Of each name selector (by place): how many workflows it matched, and the first ids. */
  private readonly matched = new Map<number, { count: number; ids: string[] }>();
  private readonly activations: { action: Activation; matching: number[] }[] = [];

  private readonly selectors: readonly WorkflowSelector[];

  constructor(selectors: readonly WorkflowSelector[]) {
    this.selectors = selectors;
  }

  saw(id: string, matching: readonly number[]): void {
    for (const i of matching.filter((i) => this.selectors[i]!.kind === "name")) {
      const seen = this.matched.get(i) ?? { count: 0, ids: [] };
      seen.count++;
      if (seen.ids.length < MAX_NAMED_IDS) seen.ids.push(id);
      this.matched.set(i, seen);
    }
  }

  /** Whether only `name:` selectors ask for an activation: copies of the name listed later would have settle() report it. */
  onlyNamed(matching: readonly number[]): boolean {
    return matching.every((i) => this.selectors[i]!.kind === "name");
  }

  activation(action: Activation, matching: number[]): void {
    this.activations.push({ action, matching });
  }

  /** Reports the activations only colliding names ask for; returns a warning per collision. */
  settle(): string[] {
    const colliding = new Set([...this.matched].filter(([, seen]) => seen.count > 1).map(([i]) => i));
    for (const { action, matching } of this.activations) {
      if (!matching.every((i) => colliding.has(i))) continue;
      const others = this.matched.get(matching[0]!)!.count - 1;
      Object.assign(action, { status: "reported", reason: `${action.reason}, and ${count(others, "other workflow")} by that name: not activated (select the one meant by id)` });
    }
    return [...colliding].map((i) => {
      const { count: n, ids } = this.matched.get(i)!;
      const listed = `${ids.join(", ")}${n > ids.length ? `, and ${n - ids.length} more` : ""}`;
      return `n8n.workflows.keepActive[${i}] (${JSON.stringify(this.selectors[i]!.text)}) matches ${n} workflows (${listed}): a name is anyone's to give a workflow, so none is activated for it and none deactivated; select the one meant with id:<id>`;
    });
  }
}

/** Workflow ids a collision's warning lists. */
const MAX_NAMED_IDS = 10;
