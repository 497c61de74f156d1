/**
 * The changes n8n refused for good in the last run under a policy (a workflow without a trigger node
 * answers 400 to every activation; one the key's user may only view, 403 to every change): the next
 * run under the same policy tries them again, but its guard does not count them, or as many standing
 * refusals as n8n.guard.maxChanges would trip it on every run, and nothing would be reconciled again.
 * The front end that runs the job on schedule keeps the record between runs (the Workflows function:
 * functions/shared/state/workflows-refusals.ts); a policy changed since, the fix among the changes,
 * clears it, as enforce's last sweep is cleared (lib/jobs/enforce/rules.ts).
 */
import { HttpError, isTerminal } from "../../http/index.ts";
import type { Policy } from "../../policy/index.ts";
import { count, firstOf } from "../view.ts";

/** What the last run refused for good: the changes (changeKey), under the policy of this SHA-256, in the run started at `at` (ISO 8601). */
export interface LastRefusals {
  policySha256: string;
  at: string;
  refused: string[];
}

/**
 * The most changes a record names, and the longest key it keeps (n8n's ids are 16 characters; a server's
 * longer one is not remembered, so counted again: the guard's safe side). Together they keep the record
 * under a DynamoDB item's 400 KB, however many changes n8n refuses.
 */
export const MAX_REFUSED = 2_000;
const MAX_KEY = 100;
/** The refused changes a warning names; it counts the rest. */
const NAMED = 10;

interface Change {
  type: "activate" | "deactivate";
  workflowId: string;
  name: string;
  status: string;
  lasting?: true;
  refusedBefore?: true;
}

/** How a record names a change: "activate:<id>". */
export function changeKey(change: Pick<Change, "type" | "workflowId">): string {
  return `${change.type}:${change.workflowId}`;
}

/** Whether another try of a failed change meets the same answer: a 4xx but a timeout (408) or a rate limit (429); a refused key (401) is the key's, not the workflow's. */
export function lastingRefusal(err: unknown, signal: AbortSignal | undefined): boolean {
  return !signal?.aborted && isTerminal(err) && !(err instanceof HttpError && err.status === 401);
}

/** The changes the record of the last run under this same policy names; none under another policy. */
export function refusedBefore(policy: Policy, last: LastRefusals | undefined): ReadonlySet<string> {
  return new Set(last?.policySha256 === policy.source.sha256 ? last.refused : []);
}

/**
 * What a run leaves for the next: the changes n8n refused for good now, and those `last` (the record as it
 * stands, under the same policy) named that this run did not try: a dry run, a tripped guard, a listing the
 * guard stopped short, a change held, one the guard had no room for (apply.ts), each tries none, and must not
 * forget them, or they would count again.
 * A change tried and made, or failed for a passing reason, leaves the record.
 */
export function refusalsOf(report: { startedAt: string; policy: { sha256: string } | null; actions: readonly Change[] }, last?: LastRefusals): LastRefusals | undefined {
  if (!report.policy) return undefined;
  const lasting = (a: Change) => a.status === "failed" && a.lasting === true;
  const tried = new Set(report.actions.filter((a) => a.status === "done" || (a.status === "failed" && !lasting(a))).map(changeKey));
  const before = last?.policySha256 === report.policy.sha256 ? last.refused.filter((key) => !tried.has(key)) : [];
  const refused = [...new Set([...report.actions.filter(lasting).map(changeKey), ...before])].filter((key) => key.length <= MAX_KEY).slice(0, MAX_REFUSED);
  return { policySha256: report.policy.sha256, at: report.startedAt, refused };
}

/** The warning of a run whose plan holds changes refused before: which, and what mends them. */
export function refusedBeforeWarning(again: readonly Change[], last: LastRefusals): string {
  const named = firstOf(again.map((a) => `${a.type} ${a.workflowId} (${JSON.stringify(a.name)})`), NAMED);
  return (
    `guard: ${count(again.length, "change")} n8n refused for good in the last run (${last.at}) under this same policy, tried again but not counted against n8n.guard.maxChanges: ${named}; ` +
    "give the API key's user the rights to change those workflows, add a trigger node to those n8n will not activate without one, " +
    "or change n8n.workflows.keepActive so that the policy asks no change of them (select one it may not switch off, leave out one it cannot switch on)"
  );
}
