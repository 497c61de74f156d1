/**
 * The Slack slash command endpoint (a Lambda Function URL). Slack wants an answer within 3 seconds,
 * so this only checks the request and starts the worker, which runs the job and posts the result to
 * the command's response_url. In order: normalised headers; a body over a form's bound refused (413,
 * before anything reads it); Slack's ssl_check answered (200, empty);
 * Slack's signature over the raw body (else 401, and nothing happens; a signing secret that cannot be had
 * is a 401 too, logged as this function's failure); a Slack retry, or a request
 * already received, acknowledged without running again (functions/shared/slack/once.ts); the form; the caller
 * against the policy; the command; the response_url; the caller's commands this minute
 * (functions/shared/slack/command-rate.ts); then one asynchronous invoke of the worker and an ephemeral
 * acknowledgement. The claims and the invoke are cut at the request's deadline (ANSWER_BY_MS, or sooner as
 * Slack's own time of the request says: answerBy), past which nothing is started; a request received after
 * Slack gave up on it (SLACK_GAVE_UP_MS) is answered, once verified, before anything else. Nothing here calls GitLab or n8n, or can: the function reads only the endpoints'
 * secret (functions/shared/config/secrets.ts), never the jobs' tokens.
 *
 * The caller is checked here only against a policy shipped in the bundle. A policy in a GitLab
 * repository takes the GitLab token to read, which this public function must not hold: the worker
 * (which checks every command anyway) then refuses an unauthorised caller, on the response_url.
 */
import type { APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
// lib/jobs/report/ (its own face), not the jobs' index: chat-ops runs no job, and must not load them at cold start.
import { errorText } from "../lib/jobs/report/index.ts";
import { authorizeSlack } from "../lib/policy/index.ts";
import { redactStrings } from "../lib/redact/index.ts";
import { chatopsSecrets, requireSecret } from "./shared/config/secrets.ts";
import { loadPolicy, repositoryPolicyLocation } from "./shared/config/policy.ts";
import { allowedResponseOrigin, isAllowedResponseUrl } from "./shared/config/slack.ts";
import { endpointCredential, httpEndpoint } from "./shared/lambda/http-endpoint.ts";
import type { DeadlineContext } from "./shared/lambda/deadline.ts";
import { logger } from "./shared/lambda/logger.ts";
import { describeRequest, makesChanges } from "./shared/runs/job-request.ts";
import { notStarted, startWorker } from "./shared/runs/start-worker.ts";
import { changeRefusal } from "./shared/slack/authorise.ts";
import { COMMANDS_PER_MINUTE, takeCommandSlot } from "./shared/slack/command-rate.ts";
import { parseCommand, usage } from "./shared/slack/command.ts";
import { MAX_FORM_BYTES, slackCommandForm, type SlackCommandEvent } from "./shared/slack/form.ts";
import { slackRequestOnce, slackSslCheck } from "./shared/slack/once.ts";
import { ephemeral, quoted } from "./shared/slack/reply.ts";
import { verifySlackRequest } from "./shared/slack/verify-request.ts";
import { dynamoClaims } from "./shared/state/claims.ts";

// Started at init, so they overlap the rest of module loading rather than following it. For an
// on-demand cold start, init is still part of the first request's 3 seconds: this shortens that path,
// it does not take the reads off it. Awaited (and any failure reported) when needed. Neither reaches
// GitLab: the chat-ops secret authenticates requests, and the bundled policy is a file.
const bundledPolicy = repositoryPolicyLocation() === undefined;
chatopsSecrets.get().catch(() => undefined);
if (bundledPolicy) loadPolicy().catch(() => undefined);
const claims = dynamoClaims();

type Result = APIGatewayProxyStructuredResultV2;

/**
 * Slack shows a command as failed 3 s after sending it, and its user may then type it again: from when the
 * request is taken, the claims and the invoke get this long (the secret's read has its own 2 s), and a
 * command not started by then is not started at all.
 */
const ANSWER_BY_MS = 2_500;
/**
 * Slack's 3 s run from when it sent the request, not from when the handler took it: a cold start's init is
 * spent from them too. Its timestamp is in whole seconds (so the request was sent up to a second after it),
 * hence 2.8 s from it: the deadline then falls 1.8 to 2.8 s after the send, never past Slack's 3. At least
 * CLOCKS_MAY_DIFFER_MS all the same, or a Lambda clock a little ahead of Slack's would refuse every command.
 */
const ANSWER_BY_SLACK_MS = 2_800;
const CLOCKS_MAY_DIFFER_MS = 500;
/**
 * Sent within a second of its timestamp, a request has been shown as failed by Slack 4 s after it at the
 * latest: one received later still (by more than CLOCKS_MAY_DIFFER_MS) is late, not skewed, and starts
 * nothing, however quick the rest would be (its user has typed the command again, or will).
 */
const SLACK_GAVE_UP_MS = 4_000;

/** The request's deadline narrowed by Slack's time of it (verified by now). */
function answerBy(signal: AbortSignal, sentAt: number): AbortSignal {
  const left = sentAt * 1000 + ANSWER_BY_SLACK_MS - Date.now();
  return !(left < ANSWER_BY_MS) ? signal : AbortSignal.any([signal, AbortSignal.timeout(Math.max(CLOCKS_MAY_DIFFER_MS, left))]);
}

async function acknowledge(event: SlackCommandEvent, context: Context & DeadlineContext): Promise<Result> {
  const { signal } = context;
  const form = event.body;
  const caller = { userId: form.user_id, channelId: form.channel_id };
  // One line per command, whatever became of it.
  const log = (level: "info" | "warn", outcome: string, fields: Record<string, unknown> = {}) =>
    logger[level]("chat-command", { outcome, user: form.user_id, userName: form.user_name, channel: form.channel_id, ...fields });

  // Undefined for a policy in a repository: the worker judges the caller.
  const authz = bundledPolicy ? authorizeSlack(await loadPolicy(), caller) : undefined;
  if (authz && !authz.allowed) {
    log("warn", "refused", { reason: authz.reason });
    return reply(`:no_entry: ${authz.reason}`);
  }
  const parsed = parseCommand(form.text);
  if (parsed.kind === "help") {
    log("info", "help");
    return reply(usage(form.command));
  }
  if (parsed.kind === "invalid") {
    log("warn", "malformed", { reason: parsed.error });
    return reply(`${parsed.error}\n\n${usage(form.command)}`);
  }
  const command = describeRequest(parsed.request);
  const refused = changeRefusal(authz, parsed.request);
  if (refused) {
    log("warn", "refused", { command, reason: refused });
    return reply(`:no_entry: ${refused}`);
  }
  // The worker refuses an event whose response_url it may not post to, and would then have nobody to
  // tell: checked here with the same test, so the user hears of it now, and no worker is started.
  if (!isAllowedResponseUrl(form.response_url)) {
    const reason = `the response_url is not on ${allowedResponseOrigin()}`;
    log("warn", "refused", { command, reason });
    return reply(`:no_entry: Warden cannot post a result for this command (${reason}), so it did not run ${quoted(command)}.`);
  }
  // Verified by now (verifySlackRequest): Slack's time of the request.
  const sentAt = Number(event.headers["x-slack-request-timestamp"]);
  let slot;
  try {
    slot = await takeCommandSlot(claims, form.enterprise_id || form.team_id, form.user_id, sentAt, signal);
  } catch (err) {
    const reason = signal.aborted ? "the claims table did not answer in time" : "the claims table could not be reached";
    log("warn", "not run", { command, reason, error: errorText(err) });
    return reply(`:x: Warden could not count this minute's commands, so it did not run ${quoted(command)}. Try again in a minute.`);
  }
  if (!slot.taken) {
    log("warn", "refused", { command, reason: `more than ${COMMANDS_PER_MINUTE} commands a minute` });
    return reply(`:no_entry: Warden starts at most ${COMMANDS_PER_MINUTE} commands a minute for each person, and you have sent that many this minute: it did not run ${quoted(command)}. Try again in ${slot.retryInSeconds} s.`);
  }
  // Slack is about to show the command as failed: a worker started now would run unseen, and again when retyped.
  if (signal.aborted) {
    log("warn", "not run", { command, reason: "no time left to start it within Slack's 3 s" });
    return reply(`:x: Warden could not start ${quoted(command)} in time; nothing was run. Run it again.`);
  }
  try {
    await startWorker({ command: parsed.request, responseUrl: form.response_url, user: { id: form.user_id, name: form.user_name }, channelId: form.channel_id, correlationId: context.awsRequestId, sentAt }, signal);
  } catch (err) {
    if (notStarted(err)) {
      logger.error("starting the worker failed", { command, error: errorText(err) });
      return reply(`:x: Warden could not start ${quoted(command)}; nothing was run.`);
    }
    logger.error("starting the worker may have failed", { command, error: errorText(err) });
    return reply(
      `:warning: Warden may or may not have started ${quoted(command)}: Lambda's answer to the request was lost. ` +
        "If it did start, the result will be posted here: check the channel before running the command again.",
    );
  }
  log("info", "started", { command });
  const dryRun = makesChanges(parsed.request) ? "" : " (dry run)";
  if (!authz) return reply(`:hourglass_flowing_sand: Checking ${quoted(command)}${dryRun} against the policy; the result, or why it was refused, will be posted here.`);
  return reply(`:hourglass_flowing_sand: Running ${quoted(command)}${dryRun}; the result will be posted here.`);
}

/** Every acknowledgement passes lib/redact: it may quote the command's text (an accepted one) or an error. */
function reply(text: string): Result {
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(redactStrings(ephemeral(text))) };
}

// No refusal is logged as it is answered: a 401's reason is logged where it is decided (onRefused), and
// a body too large or a malformed form (413, 400, 415) is only answered. Warden's own failures are logged by httpEndpoint.
export const handler = httpEndpoint("chat-command", { maxBodyBytes: MAX_FORM_BYTES })
  // The request's deadline, read by slackRequestOnce's claim and by acknowledge.
  .before(({ context }) => {
    (context as Context & DeadlineContext).signal = AbortSignal.timeout(ANSWER_BY_MS);
  })
  .use(slackSslCheck())
  .use(
    verifySlackRequest({
      signingSecret: endpointCredential(async () => requireSecret(await chatopsSecrets.get(), "slackSigningSecret", "chat-ops")),
      onRefused: (reason) => logger.warn("request refused: not signed by Slack", { reason }),
    }),
  )
  .before(({ event, context }) => {
    const sentAt = Number((event as { headers: Record<string, string | undefined> }).headers["x-slack-request-timestamp"]);
    const after = Date.now() - sentAt * 1000;
    if (after > SLACK_GAVE_UP_MS + CLOCKS_MAY_DIFFER_MS) {
      logger.warn("chat-command", { outcome: "too late", reason: `received ${(after / 1000).toFixed(1)} s after Slack's time of it: Slack had shown it as failed`, requestTimestamp: sentAt });
      return reply(":x: Warden could not start this command in time: it arrived after Slack stopped waiting for it; nothing was run. Run it again.");
    }
    const ctx = context as Context & DeadlineContext;
    ctx.signal = answerBy(ctx.signal, sentAt);
    return undefined;
  })
  .use(
    slackRequestOnce({
      claims,
      onSkipped: (reason, fields) => logger.warn("chat-command", { outcome: "not run", reason, ...fields }),
    }),
  )
  .use(slackCommandForm())
  .handler((event, context) => acknowledge(event as unknown as SlackCommandEvent, context as Context & DeadlineContext));
