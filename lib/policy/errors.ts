import { redactThenCut } from "../redact/index.ts";

export interface PolicyIssue {
  /** Field path such as `gitlab.shares.allow[2].maxAccess`; empty for the whole file. */
  path: string;
  message: string;
}

/**
 * Issue messages quote the file (a value, a line), and the file may be anything `--policy` was
 * pointed at (a .env full of tokens, a dump): each is redacted and cut, and a file with hundreds of
 * problems shows the first few, so an error never carries more than a line of the file per problem.
 */
const MAX_ISSUE_CHARS = 300;
const MAX_ISSUES_SHOWN = 20;

/** A policy file that cannot be used; the message names the file and every issue, one per line. */
export class PolicyError extends Error {
  override name = "PolicyError";
  readonly source: string;
  readonly issues: PolicyIssue[];

  constructor(source: string, issues: PolicyIssue[]) {
    // One issue per line, whatever a key or value quoted from the file holds (front ends escape the rest).
    const line = (text: string) => redactThenCut(text, MAX_ISSUE_CHARS).replaceAll("\n", "\\x0a");
    const shown = issues.slice(0, MAX_ISSUES_SHOWN).map(({ path, message }) => `${source}: ${line(`${path === "" ? "" : `${path}: `}${message}`)}`);
    const more = issues.length - MAX_ISSUES_SHOWN;
    super([...shown, ...(more > 0 ? [`${source}: … and ${more} more problems`] : [])].join("\n"));
    this.source = source;
    this.issues = issues;
  }
}
