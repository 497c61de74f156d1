import { expect } from "vitest";
import { parsePolicy, PolicyError, type PolicyIssue } from "../../lib/policy/index.ts";

/** The issues parsePolicy reports for `text`, failing the test if it does not throw a PolicyError. */
export function issuesOf(text: string, source = "warden.yaml"): PolicyIssue[] {
  try {
    parsePolicy(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as PolicyError).issues;
  }
  throw new Error("expected a PolicyError");
}

/** parsePolicy's refusal of `text` (its PolicyError's message), or undefined where it takes it; any other error fails the test. */
export function refusalOf(text: string, source = "warden.yaml"): string | undefined {
  try {
    parsePolicy(text, source);
  } catch (error) {
    if (error instanceof PolicyError) return error.message;
    throw error;
  }
  return undefined;
}

/** Policies the tests share; STANDARD is the one the GitLab simulator's share intents refer to. */
export function standardPolicy(maxRemovals = 1000): string {
  return `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/contractor-x"
        projects: ["acme/mobile/**"]
        maxAccess: developer
    exempt:
      - project: "acme/legacy/**"
  guard:
    maxRemovals: ${maxRemovals}
`;
}

/** The standard policy with the group-share rules the simulator's group-share intents assume (generate.ts). */
export function groupSharesPolicy(maxRemovals = 1000): string {
  return standardPolicy(maxRemovals)
    .replace(
      "        maxAccess: developer\n",
      '        maxAccess: developer\n      - group: "auditors"\n        groups: ["acme", "acme/platform/**"]\n        maxAccess: reporter\n        expiresWithin: 90d\n',
    )
    .replace('      - project: "acme/legacy/**"\n', '      - project: "acme/legacy/**"\n      - group: "acme/legacy/**"\n');
}

/**
 * acme's shares under onStray notify: 7 days' grace, the notices in security/access-notices (with
 * `labels`), `scope` added to the scope's map (its overrides), and the guard as given.
 */
export function notifyPolicy(opts: { labels?: string; scope?: string; guard?: string; allow?: string; exempt?: string } = {}): string {
  return `version: 1
gitlab:
  scope: { groups: [acme]${opts.scope ?? ""} }
  shares:
    allow:
      - group: "acme/**"
${opts.allow ? `      - ${opts.allow}\n` : ""}${opts.exempt ? `    exempt:\n      - ${opts.exempt}\n` : ""}    onStray: notify
    grace: 7d
    notices: { project: security/access-notices${opts.labels ? `, labels: [${opts.labels}]` : ""} }
  guard: ${opts.guard ?? "{ maxRemovals: 100, unmatchedRules: warn }"}
`;
}

/** Only acme's own groups may be invited: every share with a group outside acme is stray. */
export const ACME_ONLY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
  guard: { maxRemovals: 100, unmatchedRules: warn }
`;

/**
 * No allow rule matches any group: every share in scope is stray, so an apply has hundreds to remove.
 * The rule that matches nothing is accepted explicitly, or the guard would refuse to remove anything.
 */
export const EVERYTHING_STRAY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "nobody/**"
  guard: { maxRemovals: 100000, unmatchedRules: warn }
`;

/** The chat tests' people and channel, and a policy where they may run pipelines of acme/platform/** on main with DEPLOY_ENV. */
export const CHAT = { applier: "U012ABCDEF", viewer: "U034GHIJKL", channel: "C0123456" } as const;
export const CHAT_PIPELINE_POLICY = `${standardPolicy()}
pipelines:
  allow:
    - project: "acme/platform/**"
      refs: ["main"]
      variables: ["DEPLOY_ENV"]
chatops:
  slack:
    users: ["${CHAT.applier}", "${CHAT.viewer}"]
    channels: ["${CHAT.channel}"]
    applyUsers: ["${CHAT.applier}"]
`;
