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
    // One issue per line, whatever a key or value quoted from the file holds, or the source's name (for a
    // repository's policy, the ref and commit GitLab named); front ends escape the rest.
    const oneLine = (text: string) => text.replaceAll("\n", "\\x0a");
    const line = (text: string) => oneLine(redactThenCut(text, MAX_ISSUE_CHARS));
    const where = oneLine(source);
    const shown = issues.slice(0, MAX_ISSUES_SHOWN).map(({ path, message }) => `${where}: ${line(`${path === "" ? "" : `${path}: `}${message}`)}`);
    const more = issues.length - MAX_ISSUES_SHOWN;
    super([...shown, ...(more > 0 ? [`${where}: … and ${more} more problems`] : [])].join("\n"));
    this.source = source;
    this.issues = issues;
  }
}
