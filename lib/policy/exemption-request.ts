/**
 * What an exemption request (`warden exempt`, `/warden exempt`) asks for, checked before any request: paths GitLab could have, an expiry
 * in the future, a reason a reviewer can read. Every problem is named at once.
 */
import { plainPathProblem } from "./glob.ts";
import { reasonProblem } from "./rules.ts";
import { redactOutput, redactShapes } from "../redact/index.ts";

export interface ExemptRequest {
  /** The project whose share is exempted (a full path). */
  project: string;
  /** The invited group the exemption is limited to; undefined: every share of the project. */
  group?: string;
  /** YYYY-MM-DD, the last UTC day it applies; undefined: no expiry. */
  until?: string;
  reason: string;
}

export class ExemptInputError extends Error {
  override name = "ExemptInputError";
}

/** Which part of the request a problem is in, and what kind: a front end words it its own way (Slack by position, quoting nothing). */
export interface ExemptProblem {
  field: "project" | "group" | "until" | "reason";
  kind: "missing" | "invalid" | "past" | "credential";
  /** The CLI's words, naming the option and quoting the value. */
  message: string;
}

/** Quoting nothing: the value is what must not be shown. */
export const CREDENTIAL_IN_REASON =
  "--reason holds a credential, or text shaped like one (a GitLab token, a JWT, a Slack webhook URL, a URL's password): the reason is committed to the policy and shown in the merge request; take it out";

type Given = { project?: string; group?: string; until?: string; reason?: string };

/**
 * Every problem of the request as given; none: it may be asked for. `registered: false` asks only whether
 * the reason holds text shaped like a credential, not one of those the process has registered (lib/redact):
 * asked of a caller not yet allowed, that would tell them whether a guess was one of those.
 */
export function exemptRequestProblems(given: Given, now: Date, { registered = true }: { registered?: boolean } = {}): ExemptProblem[] {
  const problems: ExemptProblem[] = [];
  const { project, group, until, reason } = given;
  if (project === undefined) problems.push({ field: "project", kind: "missing", message: "--project is required: the project whose share to exempt (GROUP/PROJECT)" });
  else {
    const problem = plainPathProblem(project, "project path") ?? (project.includes("/") ? undefined : `invalid project path ${JSON.stringify(project)}: a project's full path has its group first (GROUP/PROJECT)`);
    if (problem) problems.push({ field: "project", kind: "invalid", message: `--project: ${problem}` });
  }
  if (group !== undefined) {
    const problem = plainPathProblem(group, "group path");
    if (problem) problems.push({ field: "group", kind: "invalid", message: `--group: ${problem}` });
  }
  if (until !== undefined) {
    const today = now.toISOString().slice(0, 10);
    if (!isCalendarDay(until)) problems.push({ field: "until", kind: "invalid", message: `--until: expected a date YYYY-MM-DD, got ${JSON.stringify(until)}` });
    else if (until <= today) problems.push({ field: "until", kind: "past", message: `--until: ${until} is not in the future (today is ${today} UTC): an exemption that has lapsed exempts nothing` });
  }
  if (reason === undefined) problems.push({ field: "reason", kind: "missing", message: "--reason is required: why the share should stay (reviewers read it)" });
  else {
    const problem = reasonProblem(reason);
    if (problem) problems.push({ field: "reason", kind: "invalid", message: `--reason: ${problem}` });
    // Committed to the policy's history and shown in the merge request to everyone on its project: masked
    // there, it would be no reason, and the requester would not know the credential was in their text.
    else if ((registered ? redactOutput(reason) : redactShapes(reason)) !== reason) problems.push({ field: "reason", kind: "credential", message: CREDENTIAL_IN_REASON });
  }
  return problems;
}

/** The request as given, or ExemptInputError naming every problem. */
export function checkExemptRequest(given: Given, now: Date): ExemptRequest {
  const problems = exemptRequestProblems(given, now);
  if (problems.length > 0) throw new ExemptInputError(`${problems.map((p) => p.message).join("\n")}\nnothing was read or changed`);
  const { project, group, until, reason } = given;
  return { project: project!, ...(group !== undefined && { group }), ...(until !== undefined && { until }), reason: reason! };
}

function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === text;
}
