/**
 * `/warden exempt <project-path> <group-path> [until YYYY-MM-DD] reason <text>`: an exemption request,
 * checked as `warden exempt` checks it (lib/jobs/exempt's exemptRequestProblems), its problems worded
 * by position. As every chat error, none quotes a word of the command (functions/shared/slack/command.ts).
 */
import { exemptRequestProblems, type ExemptProblem } from "../../../lib/policy/index.ts";
import { MAX_REASON_CHARS } from "../../../lib/policy/rules.ts";
import type { ExemptJobRequest } from "../runs/job-request.ts";

export const EXEMPT_SHAPE = "exempt <project-path> <group-path> [until YYYY-MM-DD] reason <text>";

/** Words typed as options: `-…`, or a dash a chat client made of a typed `--`. */
const OPTION = /^[-\u2013\u2014]/;

/** `args`: the command's words after `exempt`, as typed (Slack's escaping undone). Words 2 and 3 are the paths, whatever they say. */
export function parseExempt(args: string[], now: Date): { request: ExemptJobRequest } | { error: string } {
  const [project, group, ...rest] = args;
  const dated = rest[0]?.toLowerCase() === "until";
  const keyword = dated ? 2 : 0;
  // The reason is free text: a dash in it is the requester's, not an option.
  if (args.slice(0, 2 + keyword + 1).some((word) => OPTION.test(word))) {
    return { error: `exempt takes no options: it always opens a merge request, and merging it is the approval (${EXEMPT_SHAPE})` };
  }
  if (project === undefined || group === undefined) return { error: `exempt needs a project path and a group path (${EXEMPT_SHAPE})` };
  if (dated && rest.length === 1) return { error: `until needs a date after it, YYYY-MM-DD (${EXEMPT_SHAPE})` };
  const word = rest[keyword];
  if (word !== undefined && word.toLowerCase() !== "reason") return { error: `word ${4 + keyword} must be ${dated ? "reason" : "until or reason"} (${EXEMPT_SHAPE})` };
  const until = dated ? rest[1] : undefined;
  // One space between words: the reason is one line in the policy file whatever the chat client sent.
  const reason = word === undefined ? undefined : rest.slice(keyword + 1).join(" ");
  const request: ExemptJobRequest = { job: "exempt", project, group, ...(until !== undefined && { until }), reason: reason ?? "", apply: true };
  // Whether the reason holds text shaped like a credential, not whether it holds this function's own:
  // chat-ops judges no caller of a policy in a repository, so anyone in the workspace would learn whether
  // a guess was its secret. The Worker asks that once the policy allows the caller (exempt-run.ts).
  const error = exemptRequestError({ ...request, reason: reason || undefined }, now, { registered: false });
  return error === undefined ? { request } : { error };
}

/** The request's problems by position, or undefined: what chat-ops answers, and the worker checks again. */
export function exemptRequestError(request: Omit<ExemptJobRequest, "reason"> & { reason: string | undefined }, now: Date, opts?: { registered: boolean }): string | undefined {
  const problems = exemptRequestProblems(request, now, opts);
  const reasonWord = request.until === undefined ? 4 : 6;
  return problems.length === 0 ? undefined : problems.map((problem) => positional(problem, reasonWord, now)).join("; ");
}

/** A problem in the words of the command's positions; `reasonWord`: the position of the word `reason` (the command's name is word 1). */
function positional(problem: ExemptProblem, reasonWord: number, now: Date): string {
  switch (problem.field) {
    case "project":
      return "word 2 (the project path) is not a project's full path: GROUP/PROJECT in GitLab path characters, without wildcards";
    case "group":
      return "word 3 (the group path) is not a group's full path: GitLab path characters, without wildcards";
    case "until":
      return problem.kind === "past"
        ? `word 5 (the date after until) is not in the future (today is ${now.toISOString().slice(0, 10)} UTC): an exemption that has lapsed exempts nothing`
        : "word 5 (the date after until) is not a date YYYY-MM-DD";
    case "reason":
      if (problem.kind === "credential") return `the reason (the words after word ${reasonWord}) holds a credential, or text shaped like one (a GitLab token, a JWT, a Slack webhook URL, a URL's password): the reason is committed to the policy and shown in the merge request; take it out`;
      return problem.kind === "missing"
        ? `the reason is missing: end the command with reason and why the share should stay (reviewers read it) (${EXEMPT_SHAPE})`
        : `the reason (the words after word ${reasonWord}) must be one line of 1 to ${MAX_REASON_CHARS} characters without control, line-separator or bidirectional characters`;
  }
}
