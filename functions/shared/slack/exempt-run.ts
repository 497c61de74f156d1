/**
 * `/warden exempt` in the worker: an exemption proposed as a merge request on the deployment's policy
 * repository (lib/jobs/exempt, as `warden exempt --apply` does it), asked by one of the policy's
 * applyUsers. Not a run with a report: the merge request is the record, and an audit line names it
 * and who asked; nothing is stored for restore (there is nothing to restore) and no run metrics are
 * emitted.
 *
 * In order: what needs no read is refused first (a report-only stage, a request chat-ops would not
 * have sent); then the policy is read from its repository once, the caller is authorised against it
 * (applyUsers), and that very read is what the exemption is added to. The commit and the merge
 * request are POSTs, sent once (lib/http never retries a POST that may have arrived), and a credential
 * rotation runs the request again only when it sent nothing but reads (run-job.ts's withCredentials).
 */
import { loadGitLabPolicy } from "../../../lib/config/policy-source.ts";
import { exempt, ExemptCommittedError, ExemptRefusedError, exemptionSubject, type ExemptResult } from "../../../lib/jobs/exempt/index.ts";
import { escapeMrkdwn, sectionText, slackLink, type SlackMessage } from "../../../lib/jobs/render/index.ts";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { gitlabClient } from "../config/clients.ts";
import { loadPolicy, repositoryPolicyLocation } from "../config/policy.ts";
import { pinnedPolicyProject, REPOSITORY_POLICY_NAMES } from "../config/policy-repository.ts";
import { audit, logger } from "../lambda/logger.ts";
import { describeRequest, type ExemptJobRequest } from "../runs/job-request.ts";
import type { WebhookMessage } from "../runs/notify.ts";
import { withCredentials } from "../runs/run-job.ts";
import { changeRefusal, refusal, type SlackCaller } from "./authorise.ts";
import { notChecked } from "./not-checked.ts";
import { exemptRequestError } from "./exempt-command.ts";
import { ephemeral, quoted, type TextMessage } from "./reply.ts";

/** Refused before anything changed: the reason is the requester's to read. */
class Refused extends Error {}

/** The answer; `opened` when a merge request was (a change: its message may go to the deployment's webhook too). */
export type Exemption = { opened: true; message: ExemptionMessage } | { opened: false; message: TextMessage };

/** Fit for a command's thread and for an incoming webhook alike. */
type ExemptionMessage = SlackMessage & WebhookMessage;

export async function proposeExemption(request: ExemptJobRequest, asker: SlackCaller, signal: AbortSignal): Promise<Exemption> {
  const command = describeRequest(request);
  // Set once the policy lets the caller ask: before, a failure says nothing of why (notChecked).
  const checked = { allowed: false };
  try {
    const result = await withCredentials(request, (credentials) => {
      const gitlab = gitlabClient(credentials);
      return { http: [gitlab.http], report: propose(gitlab, request, asker, signal, checked) };
    });
    const { mergeRequest } = result;
    audit.info("exemption-requested", {
      project: request.project, sharedWith: request.group, until: request.until ?? null,
      mergeRequest: { iid: mergeRequest.iid, url: mergeRequest.webUrl }, branch: result.branch, commitId: result.commitId,
      policy: result.policy, asked: { user: asker.userId, channel: asker.channelId },
      // The notices it answers, each noted with the merge request's link or not (the warnings say why).
      ...(result.notices && { notices: result.notices.notices.map(({ iid, noted }) => ({ project: result.notices!.project, iid, noted: noted === true })) }),
      ...(result.warnings.length && { warnings: result.warnings }),
    });
    return { opened: true, message: exemptionReply(request, result, asker) };
  } catch (err) {
    // Committed (or, the commit's answer lost, maybe), its merge request not known: a change to the policy repository, told in the channel (and on the webhook, should the thread not take it) as an opened one is.
    if (err instanceof ExemptCommittedError) {
      audit.info("exemption-committed", { project: request.project, sharedWith: request.group, committed: err.committed, asked: { user: asker.userId, channel: asker.channelId }, error: err.message });
      const text = `:warning: Exemption requested by Slack user ${escapeMrkdwn(asker.userId)}: ${escapeMrkdwn(exemptionSubject(request))}: ${escapeMrkdwn(err.message)}.`;
      return { opened: true, message: inChannel(text) };
    }
    if (err instanceof Refused || err instanceof ExemptRefusedError) {
      logger.warn("chat-command refused", { command, user: asker.userId, channel: asker.channelId, reason: err.message });
      return { opened: false, message: ephemeral(`:no_entry: ${escapeMrkdwn(err.message)}`) };
    }
    if (!checked.allowed) return { opened: false, message: notChecked(request, err) };
    logger.error("job failed", { command, error: errorText(err) });
    return { opened: false, message: ephemeral(`:x: Warden ${quoted(command)} failed: ${escapeMrkdwn(errorText(err))}`) };
  }
}

/** In the channel, as every applied change is: its members see the request their reviewers will. */
export function exemptionReply(request: ExemptJobRequest, result: Pick<ExemptResult, "mergeRequest">, asker: SlackCaller): ExemptionMessage {
  const { mergeRequest } = result;
  // Every part escaped for mrkdwn: the paths and the reason are the requester's, the address and the number
  // GitLab's; the merge request's address is the one link (verbatim: Slack links nothing else).
  const text = [
    `:memo: Exemption requested by Slack user ${escapeMrkdwn(asker.userId)}: ${escapeMrkdwn(exemptionSubject(request))}.`,
    `Merge request ${slackLink(mergeRequest.webUrl ?? "", `!${mergeRequest.iid}`)}: merging it is the approval.`,
    `Reason: ${escapeMrkdwn(request.reason)}`,
  ].join("\n");
  return inChannel(text);
}

/** A message to the channel: its section cut to Slack's limit (escaped paths and a reason may be longer), else Slack refuses it. */
function inChannel(text: string): ExemptionMessage {
  return { response_type: "in_channel", text, blocks: [{ type: "section", text: sectionText(text) }] };
}

async function propose(gitlab: ReturnType<typeof gitlabClient>, request: ExemptJobRequest, asker: SlackCaller, signal: AbortSignal, checked: { allowed: boolean }): Promise<ExemptResult> {
  // The worker acts on its payload alone: checked again as chat-ops checked it.
  const invalid = exemptRequestError(request, new Date(), { registered: false });
  if (invalid) throw new Refused(`${invalid}; nothing was read or changed`);
  const at = repositoryPolicyLocation();
  // A bundled policy names who may ask, and the refusal says how to name a repository instead.
  if (at === undefined) throw new Refused(refusal(await loadPolicy(), asker, request)!);
  // A report-only stage, before the policy is read.
  const early = changeRefusal(undefined, request);
  if (early) throw new Refused(early);
  // Pinned as every other command of the container reads it: a project created at the path since is refused.
  const projectId = pinnedPolicyProject();
  const base = await loadGitLabPolicy(gitlab, at, { names: REPOSITORY_POLICY_NAMES, signal, ...(projectId !== undefined && { projectId }) });
  const refused = refusal(base.policy, asker, request);
  if (refused) throw new Refused(refused);
  // Whether the reason holds one of the credentials registered (the jobs', as the secret was read) only
  // now: asked before, it told a caller the policy does not allow whether a guess was the GitLab token.
  const credential = exemptRequestError(request, new Date());
  if (credential) throw new Refused(`${credential}; nothing was changed`);
  checked.allowed = true;
  const { job: _job, apply: _apply, ...given } = request;
  return exempt({ gitlab, base, refSetting: REPOSITORY_POLICY_NAMES.ref, request: given, requestedBy: `Slack user ${asker.userId}`, apply: true, signal });
}
