export interface PolicyIssue {
  /** Field path such as `gitlab.shares.allow[2].maxAccess`; empty for the whole file. */
  path: string;
  message: string;
}

/** A policy file that cannot be used; the message names the file and every issue, one per line. */
export class PolicyError extends Error {
  override name = "PolicyError";
  readonly source: string;
  readonly issues: PolicyIssue[];

  constructor(source: string, issues: PolicyIssue[]) {
    super(issues.map(({ path, message }) => `${source}: ${path === "" ? "" : `${path}: `}${message}`).join("\n"));
    this.source = source;
    this.issues = issues;
  }
}
