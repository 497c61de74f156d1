/**
 * What `warden exempt` is asked for, checked before any request: paths GitLab could have, an expiry
 * in the future, a reason a reviewer can read. Every problem is named at once.
 */
import { plainPathProblem, reasonProblem } from "../../policy/index.ts";

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

/** The request as given, or ExemptInputError naming every problem. */
export function checkExemptRequest(given: { project?: string; group?: string; until?: string; reason?: string }, now: Date): ExemptRequest {
  const problems: string[] = [];
  const { project, group, until, reason } = given;
  if (project === undefined) problems.push("--project is required: the project whose share to exempt (GROUP/PROJECT)");
  else {
    const problem = plainPathProblem(project, "project path") ?? (project.includes("/") ? undefined : `invalid project path ${JSON.stringify(project)}: a project's full path has its group first (GROUP/PROJECT)`);
    if (problem) problems.push(`--project: ${problem}`);
  }
  if (group !== undefined) {
    const problem = plainPathProblem(group, "group path");
    if (problem) problems.push(`--group: ${problem}`);
  }
  if (until !== undefined) {
    const today = now.toISOString().slice(0, 10);
    if (!isCalendarDay(until)) problems.push(`--until: expected a date YYYY-MM-DD, got ${JSON.stringify(until)}`);
    else if (until <= today) problems.push(`--until: ${until} is not in the future (today is ${today} UTC): an exemption that has lapsed exempts nothing`);
  }
  if (reason === undefined) problems.push("--reason is required: why the share should stay (reviewers read it)");
  else {
    const problem = reasonProblem(reason);
    if (problem) problems.push(`--reason: ${problem}`);
  }
  if (problems.length > 0) throw new ExemptInputError(`${problems.join("\n")}\nnothing was read or changed`);
  return { project: project!, ...(group !== undefined && { group }), ...(until !== undefined && { until }), reason: reason! };
}

function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === text;
}
