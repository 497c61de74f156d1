/**
 * Who may have Warden run what from Slack: the policy's user and channel lists (lib/policy), then
 * --apply (of any command, a pipeline's too) only for users allowed to apply, and never on a
 * report-only stage; an exemption request (a change to the policy repository) likewise, and only where the
 * policy is in a repository. Chat-ops checks before starting the worker; the worker checks again
 * before acting, as it trusts no payload on its own.
 */
import { authorizeSlack, type ChatAuthz, type Policy } from "../../../lib/policy/index.ts";
import { repositoryPolicyLocation } from "../config/policy.ts";
import { isReportOnly } from "../config/settings.ts";
import { makesChanges, type ExemptJobRequest, type JobRequest } from "../runs/job-request.ts";

export interface SlackCaller {
  userId: string;
  channelId: string;
}

/**
 * The refusal for a caller the policy lets run commands, or undefined when the request may run.
 * Without `authz` (chat-ops with a policy it cannot read), only what needs no policy is checked.
 */
export function changeRefusal(authz: Extract<ChatAuthz, { allowed: true }> | undefined, request: JobRequest): string | undefined {
  if (request.job === "exempt") return exemptRefusal(authz);
  if (!makesChanges(request)) return undefined;
  // Starting a pipeline is a change like any other: "report-only" means nothing is ever applied.
  if (isReportOnly() && request.job === "pipeline") return "this Warden deployment is report-only: it starts no pipelines (run without --apply for a dry run)";
  if (isReportOnly()) return "this Warden deployment is report-only: --apply is refused (run without it for a dry run)";
  if (authz && !authz.canApply) return "you may run Warden commands, but not with --apply";
  return undefined;
}

/** An exemption request is a change (a branch, a commit and a merge request on the policy repository): refused as --apply is, in its own words. */
function exemptRefusal(authz: Extract<ChatAuthz, { allowed: true }> | undefined): string | undefined {
  if (isReportOnly()) return "this Warden deployment is report-only: it opens no merge requests (propose the exemption with warden exempt from a laptop or CI)";
  if (authz && !authz.canApply) return "you may run Warden commands, but not request exemptions: an exemption request is a change to the policy repository, for the policy's applyUsers";
  if (repositoryPolicyLocation() === undefined) {
    return "this Warden deployment reads its policy from the file bundled at deploy, so there is no policy repository to propose an exemption to: " +
      "deploy again with WARDEN_POLICY_PROJECT (at sst deploy) naming the policy's GitLab project (and WARDEN_POLICY_PATH, WARDEN_POLICY_REF where not the defaults), or edit the bundled file";
  }
  return undefined;
}

/** Both checks, for a request already parsed. */
export function refusal(policy: Policy, caller: SlackCaller, request: JobRequest): string | undefined {
  const authz = authorizeSlack(policy, caller);
  return authz.allowed ? changeRefusal(authz, request) : authz.reason;
}
