/**
 * `name:` selectors that more than one workflow answers to. Anyone who may create a workflow may give it
 * a listed workflow's name, and Warden cannot tell which one the policy meant: a workflow activated for
 * such a selector alone would be someone's own, run because it copied a name. So an activation that
 * only colliding names ask for is reported, not made, and each collision is a warning; active ones
 * are kept (deactivating would let a copy switch the real one off). An `id:` is no one else's to take.
 */
import { HttpError, type N8nClient } from "../../n8n/index.ts";
import type { WorkflowSelector } from "../../policy/index.ts";
import { errorText } from "../report/index.ts";
import { count } from "../view.ts";

/** An activation as the job plans it (index.ts's WorkflowAction): its reason and status are rewritten here. */
export interface Activation {
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

  /** The activations only `name:` selectors ask for: each is made only if no copy of the name is found just before (copyOfName). */
  namedOnly(): Set<Activation> {
    return new Set(this.activations.filter(({ matching }) => this.onlyNamed(matching)).map(({ action }) => action));
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
      const listed = namedIds(ids, n);
      return `n8n.workflows.keepActive[${i}] (${JSON.stringify(this.selectors[i]!.text)}) matches ${n} workflows (${listed}): a name is anyone's to give a workflow, so none is activated for it and none deactivated; select the one meant with id:<id>`;
    });
  }
}

/** Workflow ids a collision's warning lists. */
const MAX_NAMED_IDS = 10;

/** The first ids of `total` workflows, and how many more. */
const namedIds = (ids: readonly string[], total: number): string => `${ids.join(", ")}${total > ids.length ? `, and ${total - ids.length} more` : ""}`;

/** The most workflows n8n's listing by a name is read for; past them, no copy of the name can be ruled out. */
const MAX_NAMESAKES = 1_000;

/**
 * Why an activation only `name:` selectors ask for is not made, found just before it; undefined: no other
 * workflow has the name. The run's listing saw no copy, but n8n's cursor is an offset: a workflow deleted
 * while it was read moved every later one a place back, and one was never listed (pages.ts), which may be
 * the copy made to be activated, or the workflow it copied. So n8n is asked for the name (it matches a part
 * of the name: only the whole name counts, archived copies aside), and the answer must hold the workflow
 * itself where it was read just before (`wasRead`), else the filter is not to be trusted (a name its LIKE
 * reads otherwise). A refused key (401), or a stop, ends the change as the read before it does (apply.ts).
 */
export async function copyOfName(n8n: N8nClient, id: string, name: string, signal?: AbortSignal, wasRead = true): Promise<string | undefined> {
  const others: string[] = [];
  let [self, read] = [false, 0];
  try {
    for await (const wf of n8n.listWorkflows({ name }, { signal, maxItems: MAX_NAMESAKES })) {
      read++;
      // An archived copy is retired, out of a name's count as the plan counts it (lib/policy/workflows.ts).
      if (wf.name !== name || wf.isArchived === true) continue;
      if (wf.id === id) self = true;
      else others.push(wf.id);
    }
  } catch (err) {
    if (signal?.aborted || (err instanceof HttpError && err.status === 401)) throw err;
    return `n8n could not be asked for other workflows by that name (${errorText(err)}): not activated, nothing was sent (select it by id)`;
  }
  if (others.length) {
    return `${count(others.length, "other workflow")} by that name found just before the change (${namedIds(others.slice(0, MAX_NAMED_IDS), others.length)}), which the listing did not show (one deleted while it was read moves the rest): not activated, nothing was sent (select the one meant by id)`;
  }
  // Not read just before, the workflow may be gone: not finding it then says nothing of the filter.
  if ((self || !wasRead) && read < MAX_NAMESAKES) return undefined;
  const why = read >= MAX_NAMESAKES ? `holds more than ${MAX_NAMESAKES} workflows` : "does not hold this one";
  return `n8n's listing by that name ${why}, so no other workflow by that name can be ruled out: not activated, nothing was sent (select it by id)`;
}
