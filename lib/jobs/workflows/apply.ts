/** Makes a workflows run's planned changes (index.ts), by id, each POST once. */
import pMap from "p-map";
import { contradiction, HttpError, mayHaveBeenMade, type N8nClient, type Workflow } from "../../n8n/index.ts";
import { decideWorkflow, type Policy } from "../../policy/index.ts";
import { auditedUnder, errorText, stoppedMidRequest, type JobOptions } from "../report/index.ts";
import { lastingRefusal } from "./refused-before.ts";
import { reportedName, workflowInput, type WorkflowAction } from "./action.ts";
import { wellFormed } from "./listed.ts";
import { copyOfName, type Activation } from "./name-collisions.ts";

/** The API key was refused (401), or may not list workflows (403): every further call would fail alike. */
export class N8nAccessError extends Error {
  override name = "N8nAccessError";
}

/**
 * n8n answers 404 for a workflow deleted since it was listed, and (2.x) for one the key's user may read
 * but not change, in words of its own: the report says both, and n8n's words.
 */
const NOT_FOUND = "n8n answered 404: the workflow was deleted since it was listed, or the API key's user may not change it";

/**
 * Makes the planned changes, at most `concurrency` at once. A change n8n refuses is recorded on its
 * action and the others go on (the next run converges). A refused key (401) stops new changes, as
 * every one after it would be refused too; changes already in flight finish. Returns that refusal.
 * Each change reads its workflow first (readBefore): one found as the change would leave it is done with nothing
 * sent, and returned (`meanwhile`), as it says nothing of what the key may do; an activation found archived or
 * renamed is reported, with nothing sent, as is one only `name:` selectors ask for (`namedOnly`) when another
 * workflow has its name (name-collisions.ts copyOfName), and a deactivation the policy now keeps.
 * A 403 stops nothing: it is a scope the key lacks (2.x), which refuses every change of that kind and
 * no other, or something refusing this one workflow (a proxy, an n8n of another version): stopping on
 * it would leave every later change behind one workflow for good. refusals() says which it was.
 * Changes go alone until one has taught the API generation (lib/n8n; one that met a proxy's 5xx
 * teaches nothing), and a key that may not make changes is refused there, before any other change
 * is under way. The changes refused for good last run (`refusedBefore`), which the guard did not count,
 * come last, and only while the run's changes stay within `limit`: else refusals gathered over runs
 * and then mended at once (triggers added to them all) would all be made in one run. Those left wait
 * as planned, and stay in the record (refusalsOf), so the next run tries them.
 */
export async function applyChanges(
  n8n: N8nClient,
  changes: WorkflowAction[],
  limit: number,
  opts: JobOptions,
  namedOnly: ReadonlySet<Activation> = new Set(),
): Promise<{ refused?: N8nAccessError; forbidden: WorkflowAction[]; meanwhile: WorkflowAction[] }> {
  const { signal } = opts;
  const audit = auditedUnder(opts.audit, opts.policy);
  let refused: N8nAccessError | undefined;
  const forbidden: WorkflowAction[] = [];
  const meanwhile: WorkflowAction[] = [];
  const change = async (action: WorkflowAction) => {
    if (signal?.aborted || refused) return;
    const activate = action.type === "activate";
    let before: Before & { copy?: string };
    try {
      before = await readBefore(n8n, action, opts.policy, signal);
      // Only `name:` selectors ask for it: made only if no other workflow has the name (name-collisions.ts). One not
      // read (readBefore) is named as listed; found by neither, it is sent: n8n's answer says what became of it (a 404: deleted).
      if (namedOnly.has(action) && !before.already && !before.archived && before.renamed === undefined) before.copy = await copyOfName(n8n, action.workflowId, before.name ?? action.name, signal, before.name !== undefined);
    } catch (err) {
      // Nothing was sent: a stop, or a refused key (which would be refused the change too), leaves it planned.
      if (err instanceof HttpError && err.status === 401) refused ??= new N8nAccessError(err.message, { cause: err });
      return;
    }
    try {
      if (before.archived) {
        // Not a change left undone: the next run judges it archived, and activates none such (lib/policy/workflows.ts).
        Object.assign(action, { status: "reported", reason: `${action.reason}; ${ARCHIVED_MEANWHILE}` });
      } else if (before.renamed !== undefined) {
        // Not undone either: the next run judges it by its new name, which the policy may not name.
        Object.assign(action, { status: "reported", reason: `${action.reason}; renamed when read just before the change (now ${JSON.stringify(before.renamed)}), so judged on a name it no longer has: not activated, nothing was sent` });
      } else if (before.copy !== undefined) {
        Object.assign(action, { status: "reported", reason: `${action.reason}; ${before.copy}` });
      } else if (before.kept) {
        // Not undone: the next run judges it as it is now, kept.
        Object.assign(action, { status: "reported", reason: `${action.reason}; ${KEPT_MEANWHILE}` });
      } else {
        if (before.already) {
          action.reason += `; ${activate ? MADE_MEANWHILE : MADE_OFF_MEANWHILE}`;
          meanwhile.push(action);
        } else await n8n.setActive(action.workflowId, activate, signal, before.versionId);
        action.status = "done";
      }
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) refused ??= new N8nAccessError(err.message, { cause: err });
      action.status = "failed";
      if (signal?.aborted) action.error = stoppedMidRequest(signal, `${action.type === "activate" ? "activating" : "deactivating"} the workflow`);
      else if (mayHaveBeenMade(err)) await readBack(n8n, action, err, signal);
      else action.error = failureText(err);
      if (lastingRefusal(err, signal)) action.lasting = true;
      if (err instanceof HttpError && err.status === 403) forbidden.push(action);
    }
    const { workflowId, name, type, reason, status: outcome, error } = action;
    audit?.info("workflow-change", { workflowId, name, change: type, rule: reason, outcome, error });
  };
  // In turns of at most `room` changes, each alone until the API generation is known; only a change refused
  // for good is sure not to have been made, so any other takes its room.
  const inTurns = async (list: WorkflowAction[], room: number) => {
    for (let next = 0; next < list.length && room > 0 && !refused && !signal?.aborted; ) {
      const turn = list.slice(next, next + (n8n.apiGeneration === undefined ? 1 : room));
      next += turn.length;
      await pMap(turn, change, { concurrency: opts.concurrency ?? 3 });
      room -= turn.filter((a) => !a.lasting).length;
    }
  };
  const counted = changes.filter((a) => !a.refusedBefore);
  await inTurns(counted, Infinity);
  await inTurns(changes.filter((a) => a.refusedBefore), limit - counted.length);
  return { ...(refused && { refused }), forbidden, meanwhile };
}

const ARCHIVED_MEANWHILE = "archived when read just before the change, so retired meanwhile: not activated (an archived workflow never is), nothing was sent";

const MADE_MEANWHILE = "found active when read just before the change, so switched on meanwhile, not by Warden: nothing was sent, and the version live is the one chosen then";

const MADE_OFF_MEANWHILE = "found inactive when read just before the change, so switched off meanwhile, not by Warden: nothing was sent";

const KEPT_MEANWHILE = "a keepActive selector matches it when read just before the change (tagged or renamed since it was listed): not switched off, nothing was sent";

/** What the read just before a change found (readBefore): nothing of it where the read failed. */
interface Before {
  /** Found as the change would leave it: made meanwhile, by someone else. */
  already?: true;
  archived?: true;
  renamed?: string;
  /** A deactivation's workflow the policy keeps as it is now. */
  kept?: true;
  versionId?: string;
  name?: string;
}

/**
 * The workflow as it is just before its change: one found as the change would leave it is sent nothing. Before an
 * activation, one archived or renamed since it was listed is sent nothing too. n8n 2.x publishes the version an
 * activation names, else its latest saved one, even over a version already published (`activateWorkflow`): a
 * workflow someone published since the listing is left as it is, and otherwise n8n is told the version read here,
 * not a draft saved after it. Before a deactivation, the workflow is judged again as it is now: one an operator
 * tagged or renamed into the policy while the listing was read is kept (switched off, the default
 * `listedInactive: report` would leave it off). A read that fails (a key without workflow:read, a 404, an outage,
 * an answer that is no such workflow) leaves the change to be sent as before this read was made, naming no
 * version: n8n's answer to it says what became of the change; only a refused key (401), which would be refused
 * the change too, or a stop ends it here.
 */
async function readBefore(n8n: N8nClient, { type, workflowId: id, name }: WorkflowAction, policy: Policy, signal?: AbortSignal): Promise<Before> {
  let read: Workflow;
  try {
    read = await n8n.getWorkflow(id, signal);
  } catch (err) {
    if (signal?.aborted || (err instanceof HttpError && err.status === 401)) throw err;
    return {};
  }
  const activate = type === "activate";
  if (!contradiction(read, id, activate)) return { already: true };
  // An answer that is no such workflow as listed says nothing more: the change is sent as if unread.
  if (contradiction(read, id, !activate)) return {};
  // Judged only in a shape n8n writes (as the listing takes one: listed.ts); else sent as if unread.
  if (!activate) return !wellFormed(read) || decideWorkflow(policy, workflowInput(read)).kind === "deactivate" ? {} : { kept: true };
  // Archived since it was listed (minutes may pass on a large n8n): n8n 1.x would activate it all the same.
  if (read.isArchived === true) return { archived: true };
  // Renamed since it was listed: the plan judged a name (`name:` selectors) it no longer has.
  if (typeof read.name === "string" && reportedName(read.name) !== name) return { renamed: reportedName(read.name) };
  return { ...(typeof read.name === "string" && { name: read.name }), ...(typeof read.versionId === "string" && { versionId: read.versionId }) };
}

/**
 * A change whose answer was lost once n8n may have had it (a gateway's 5xx, a connection dropped after the
 * request went, a 2xx unread) is never sent again, but the workflow is read back once (a GET, safe to send):
 * found as asked, it is done, and its reason says how that is known; otherwise it may or may not have been made.
 */
async function readBack(n8n: N8nClient, action: WorkflowAction, err: unknown, signal?: AbortSignal): Promise<void> {
  const active = action.type === "activate";
  const lost = failureText(err);
  let found: string;
  try {
    const denied = contradiction(await n8n.getWorkflow(action.workflowId, signal), action.workflowId, active);
    if (!denied) {
      action.status = "done";
      action.reason += `; n8n's answer was lost (${lost}), but the workflow read back is ${active ? "active" : "inactive"}`;
      return;
    }
    found = `read back, GET /workflows/:id answered ${denied}`;
  } catch (readErr) {
    found = `reading the workflow back failed too: ${errorText(readErr)}`;
  }
  action.error = `${lost}: the change may or may not have been made (${found}); the next run converges`;
}

/**
 * What a failed change says in the report: n8n's own words where it refused the change (400, 409). Only a JSON
 * answer's message is n8n's: a proxy's page (nginx's 400, a WAF's) is reported with its status and request.
 */
function failureText(err: unknown): string {
  if (!(err instanceof HttpError)) return errorText(err);
  const words = /json/i.test(err.headers["content-type"] ?? "") ? err.serviceMessage : "";
  if (err.status === 404) return words ? `${NOT_FOUND} (n8n: ${words})` : NOT_FOUND;
  if ((err.status === 400 || err.status === 409) && words) return words;
  return errorText(err);
}
