/**
 * The workflows job: keep the set of active n8n workflows equal to what the policy says. List every
 * workflow, judge each with the pure policy, plan the activation changes, and (only when asked, and
 * only if the guard holds) make them, by id. Warden changes nothing but activation, and never activates
 * an archived workflow (one that is active is judged as any other: lib/policy/workflows.ts). Memory
 * grows with the findings, and with the ids listed (listed.ts), not with the workflows themselves.
 */
import { HttpError, isActive, type ApiGeneration, type N8nClient, type Workflow } from "../../n8n/index.ts";
import { decideWorkflow, matchingSelectors, maxWorkflowChanges } from "../../policy/index.ts";
import { countStatus, errorText, jobStats, type GuardedSummary, type JobOptions, type Report } from "../report/index.ts";
import { count } from "../view.ts";
import { makeReport } from "../envelope.ts";
import { ListedWorkflows, MAX_WORKFLOWS } from "./listed.ts";
import { NameCollisions } from "./name-collisions.ts";
import { refusals } from "./refusals.ts";
import { changeKey, refusedBefore, refusedBeforeWarning, type LastRefusals } from "./refused-before.ts";
import { workflowPages } from "./pages.ts";
import { applyChanges, N8nAccessError } from "./apply.ts";
import { reportedName, workflowInput, type WorkflowAction } from "./action.ts";

export { N8nAccessError } from "./apply.ts";
export type { WorkflowAction } from "./action.ts";
export { refusalsOf, type LastRefusals } from "./refused-before.ts";

export interface WorkflowsSummary extends GuardedSummary {
  /**
   * 1 = n8n 1.x (activate/deactivate), 2 = n8n 2.x (publish/unpublish); learned by the first change,
   * so "not checked" when the run changed nothing (a dry run, a tripped guard, nothing to do).
   */
  apiGeneration: ApiGeneration | "not checked";
  workflows: number;
  active: number;
  archived: number;
  /** Changes in the plan (the "planned" actions before any was applied). */
  changes: number;
  reported: number;
  applied: number;
  failed: number;
  maxChanges: number;
}

export type WorkflowsReport = Report<WorkflowAction, WorkflowsSummary>;

export interface WorkflowsOptions extends JobOptions {
  n8n: N8nClient;
  onProgress?: (p: { workflows: number; changes: number }) => void;
  /** What the last run under the policy refused for good (refusalsOf of its report), kept by the front end; none: every change counted. */
  lastRefusals?: LastRefusals;
}

export async function reconcileWorkflows(opts: WorkflowsOptions): Promise<WorkflowsReport> {
  const { n8n, policy, signal } = opts;
  const startedAt = Date.now();
  const warnings: string[] = [];
  const actions: WorkflowAction[] = [];
  const tally = { workflows: 0, active: 0, archived: 0 };
  const limit = maxWorkflowChanges(policy);
  // A cron job that governs nothing must not pass as "in policy" forever.
  if (policy.n8n === undefined) throw new Error("the policy has no n8n section: there are no workflows to govern");

  const selected = new Set<number>();
  const names = new NameCollisions(policy.n8n.workflows.keepActive);
  const listed = new ListedWorkflows();
  const refusedLast = refusedBefore(policy, opts.lastRefusals);
  let overLimit = false;
  const judge = (wf: Workflow) => {
    if (!listed.take(wf)) return;
    const input = workflowInput(wf);
    tally.workflows++;
    if (input.active) tally.active++;
    if (input.archived) tally.archived++;
    const matching = matchingSelectors(policy, input);
    for (const i of matching) selected.add(i);
    names.saw(wf.id, matching);
    const decision = decideWorkflow(policy, input);
    if (decision.kind === "keep") return;
    const action: WorkflowAction = { type: decision.kind, workflowId: wf.id, name: reportedName(wf.name), reason: decision.reason, status: decision.apply ? "planned" : "reported" };
    actions.push(action);
    // Refused for good last run: tried again, but not counted, or standing refusals would trip the guard on every run.
    // Nor, until the listing ends, an activation only `name:` selectors ask for: copies of the name would stop every run here.
    const counted = action.status === "planned" && !refusedLast.has(changeKey(action)) && !(action.type === "activate" && names.onlyNamed(matching));
    if (counted && ++planned > limit) overLimit = true;
    if (action.type === "activate") names.activation(action, matching);
  };

  let complete = true;
  let planned = 0;
  try {
    for await (const page of workflowPages(n8n, () => listed.relisted(), signal)) {
      page.items.forEach(judge);
      opts.onProgress?.({ workflows: tally.workflows, changes: planned });
      // Past the guard nothing will be changed, and past MAX_WORKFLOWS no n8n's listing goes: either way the
      // rest is not read (a listing that never ends, a proxy's or a hostile server's, must not fill the memory).
      if (page.checkpoint.next !== null && (overLimit || listed.count >= MAX_WORKFLOWS)) {
        complete = false;
        warnings.push(overLimit
          ? `the listing was not read past ${count(tally.workflows, "workflow")}: more than n8n.guard.maxChanges (${limit}) changes were planned by then, so the guard trips whatever the rest holds`
          : `n8n lists more than ${MAX_WORKFLOWS.toLocaleString("en")} workflows, more than Warden reads: the listing was not read further and nothing was changed (is N8N_URL an n8n?)`);
        break;
      }
    }
  } catch (err) {
    if (!signal?.aborted) throw accessError(err);
    complete = false;
    warnings.push(`stopped while listing after ${count(tally.workflows, "workflow")} (${errorText(signal.reason)}): the plan is incomplete and nothing was changed`);
  }

  if (complete) {
    const unmatched = [...policy.n8n.workflows.keepActive.entries()].filter(([i]) => !selected.has(i)).map(([i, selector]) => `n8n.workflows.keepActive[${i}] (${JSON.stringify(selector.text)})`);
    for (const which of unmatched) warnings.push(`${which} matched no workflow that is not archived`);
    // A selector that keeps nothing any more (a tag any n8n member renamed, say) would have every
    // workflow it kept switched off: none is switched off until the selector or the workflows are mended.
    const held = unmatched.length ? actions.filter((a) => a.type === "deactivate" && a.status === "planned") : [];
    for (const action of held) Object.assign(action, { status: "reported", reason: `${action.reason}; not switched off while ${unmatched.join(", ")} matches nothing` });
    if (held.length) warnings.push(`${count(held.length, "workflow")} to switch off left on: ${unmatched.join(", ")} matched no workflow, and whatever it kept would be switched off with them (a renamed tag?); mend the selector or the workflows, and the next run switches them off`);
  }
  warnings.push(...listed.warnings(), ...names.settle());
  const changes = actions.filter((a) => a.status === "planned");
  const again = changes.filter((a) => refusedLast.has(changeKey(a)));
  for (const action of again) action.refusedBefore = true;
  if (again.length) warnings.push(refusedBeforeWarning(again, opts.lastRefusals!));
  const tripped = changes.length - again.length > limit;
  if (tripped) {
    warnings.push(`guard: ${count(changes.length - again.length, "change")} planned${again.length ? " (besides those refused last run)" : ""}, more than n8n.guard.maxChanges (${limit}); nothing was changed`);
  } else if (opts.apply && complete) {
    const { refused, forbidden, meanwhile } = await applyChanges(n8n, changes, limit, opts, names.namedOnly());
    // A change found made meanwhile sent nothing: it says nothing of what the key may do.
    warnings.push(...refusals(changes.filter((a) => !meanwhile.includes(a)), forbidden));
    const left = countStatus(changes, "planned");
    // Neither refused nor stopped, the changes left are those refused last run for which the guard had no room (apply.ts).
    if (left && !refused && !signal?.aborted) warnings.push(`guard: ${count(left, "change")} n8n refused last run not tried again, as n8n.guard.maxChanges (${limit}) changes were made or tried by then; the next run tries them`);
    else if (left) warnings.push(`stopped before ${left} of ${count(changes.length, "change")} (${refused?.message ?? errorText(signal?.reason)}); the next run picks them up`);
    // Stopped before the plan was carried out: changes left, or one cut off in flight.
    if (left || signal?.aborted) complete = false;
  }

  return makeReport({ job: "workflows", dryRun: !opts.apply, policy: opts.policy, startedAt }, {
    summary: {
      apiGeneration: n8n.apiGeneration ?? "not checked",
      ...tally,
      changes: changes.length,
      reported: countStatus(actions, "reported"),
      applied: countStatus(actions, "done"),
      failed: countStatus(actions, "failed"),
      maxChanges: limit,
      guard: tripped ? "tripped" : "ok",
      complete,
    },
    actions,
    stats: jobStats([n8n.http], startedAt),
    warnings,
  });
}

/** A listing refused (401, or 403: a key without workflow:list) is about the key; lib/n8n's message names the setting and what to fix. */
function accessError(err: unknown): unknown {
  if (!(err instanceof HttpError) || (err.status !== 401 && err.status !== 403)) return err;
  return new N8nAccessError(err.message, { cause: err });
}
