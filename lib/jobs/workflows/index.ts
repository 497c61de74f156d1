/**
 * The workflows job: keep the set of active n8n workflows equal to what the policy says. List every
 * workflow, judge each with the pure policy, plan the activation changes, and (only when asked, and
 * only if the guard holds) make them, by id. Warden changes nothing but activation, and never activates
 * an archived workflow (one that is active is judged as any other: lib/policy/workflows.ts). Memory
 * grows with the findings, and with the ids listed (listed.ts), not with the workflows themselves.
 */
import pMap from "p-map";
import { HttpError, isActive, type ApiGeneration, type N8nClient, type Workflow } from "../../n8n/index.ts";
import { decideWorkflow, matchingSelectors, maxWorkflowChanges } from "../../policy/index.ts";
import { auditedUnder, countStatus, errorText, jobStats, stoppedMidRequest, type GuardedSummary, type JobOptions, type Report } from "../report/index.ts";
import { count } from "../view.ts";
import { makeReport } from "../envelope.ts";
import { redactThenCut } from "../../redact/index.ts";
import { ListedWorkflows, MAX_WORKFLOWS } from "./listed.ts";
import { NameCollisions } from "./name-collisions.ts";
import { refusals } from "./refusals.ts";
import { changeKey, lastingRefusal, refusedBefore, refusedBeforeWarning, type LastRefusals } from "./refused-before.ts";
import { workflowPages } from "./pages.ts";

export { refusalsOf, type LastRefusals } from "./refused-before.ts";

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
  /** Planned, and n8n refused it for good in the last run under this same policy: tried again, not counted against n8n.guard.maxChanges. */
  refusedBefore?: true;
}

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

/** The API key was refused (401), or may not list workflows (403): every further call would fail alike. */
export class N8nAccessError extends Error {
  override name = "N8nAccessError";
}

/**
 * n8n answers 404 for a workflow deleted since it was listed, and (2.x) for one the key's user may read
 * but not change, in words of its own: the report says both, and n8n's words.
 */
const NOT_FOUND = "n8n answered 404: the workflow was deleted since it was listed, or the API key's user may not change it";

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
    const active = isActive(wf);
    const archived = wf.isArchived === true;
    tally.workflows++;
    if (active) tally.active++;
    if (archived) tally.archived++;
    const tags = (wf.tags ?? []).map((tag) => tag.name);
    const input = { id: wf.id, name: wf.name, tags, active, archived, versioned: "activeVersionId" in wf };
    const matching = matchingSelectors(policy, input);
    for (const i of matching) selected.add(i);
    names.saw(wf.id, matching);
    const decision = decideWorkflow(policy, input);
    if (decision.kind === "keep") return;
    const action: WorkflowAction = { type: decision.kind, workflowId: wf.id, name: redactThenCut(wf.name, MAX_NAME), reason: decision.reason, status: decision.apply ? "planned" : "reported" };
    actions.push(action);
    // Refused for good last run: tried again, but not counted, or standing refusals would trip the guard on every run.
    if (action.status === "planned" && !refusedLast.has(changeKey(action)) && ++planned > limit) overLimit = true;
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
    const { refused, forbidden } = await applyChanges(n8n, changes, opts);
    warnings.push(...refusals(changes, forbidden));
    const left = countStatus(changes, "planned");
    if (left) warnings.push(`stopped before ${left} of ${count(changes.length, "change")} (${refused?.message ?? errorText(signal?.reason)}); the next run picks them up`);
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

/**
 * A name longer than n8n allows (128 characters) is cut in the report, a listing of such names being no n8n's
 * either; redacted first, so that no cut leaves a credential's fragment too short to be known for one.
 */
const MAX_NAME = 200;

/**
 * Makes the planned changes, at most `concurrency` at once. A change n8n refuses is recorded on its
 * action and the others go on (the next run converges). A refused key (401) stops new changes, as
 * every one after it would be refused too; changes already in flight finish. Returns that refusal.
 * A 403 stops nothing: it is a scope the key lacks (2.x), which refuses every change of that kind and
 * no other, or something refusing this one workflow (a proxy, an n8n of another version): stopping on
 * it would leave every later change behind one workflow for good. refusals() says which it was.
 * Changes go alone until one has taught the API generation (lib/n8n; one that met a proxy's 5xx
 * teaches nothing), and a key that may not make changes is refused there, before any other change
 * is under way.
 */
async function applyChanges(n8n: N8nClient, changes: WorkflowAction[], opts: WorkflowsOptions): Promise<{ refused?: N8nAccessError; forbidden: WorkflowAction[] }> {
  const { signal } = opts;
  const audit = auditedUnder(opts.audit, opts.policy);
  let refused: N8nAccessError | undefined;
  const forbidden: WorkflowAction[] = [];
  const change = async (action: WorkflowAction) => {
    if (signal?.aborted || refused) return;
    try {
      // Idempotent on both generations: repeating an activation n8n already has answers 200.
      await n8n.setActive(action.workflowId, action.type === "activate", signal);
      action.status = "done";
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) refused ??= new N8nAccessError(err.message, { cause: err });
      action.status = "failed";
      action.error = signal?.aborted ? stoppedMidRequest(signal, `${action.type === "activate" ? "activating" : "deactivating"} the workflow`) : failureText(err);
      if (lastingRefusal(err, signal)) action.lasting = true;
      if (err instanceof HttpError && err.status === 403) forbidden.push(action);
    }
    const { workflowId, name, type, reason, status: outcome, error } = action;
    audit?.info("workflow-change", { workflowId, name, change: type, rule: reason, outcome, error });
  };
  let alone = 0;
  for (; alone < changes.length && n8n.apiGeneration === undefined && !refused && !signal?.aborted; alone++) await change(changes[alone]!);
  await pMap(changes.slice(alone), change, { concurrency: opts.concurrency ?? 3 });
  return { ...(refused && { refused }), forbidden };
}

/** A listing refused (401, or 403: a key without workflow:list) is about the key; lib/n8n's message names the setting and what to fix. */
function accessError(err: unknown): unknown {
  if (!(err instanceof HttpError) || (err.status !== 401 && err.status !== 403)) return err;
  return new N8nAccessError(err.message, { cause: err });
}

/** What a failed change says in the report: n8n's own words where it refused the change (400, 409). */
function failureText(err: unknown): string {
  if (!(err instanceof HttpError)) return errorText(err);
  if (err.status === 404) return err.serviceMessage ? `${NOT_FOUND} (n8n: ${err.serviceMessage})` : NOT_FOUND;
  if ((err.status === 400 || err.status === 409) && err.serviceMessage) return err.serviceMessage;
  return errorText(err);
}
