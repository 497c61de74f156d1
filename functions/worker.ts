/**
 * Runs the job a chat command asked for (invoked asynchronously by chat-ops) and posts the result to
 * the command's response_url: the report as Block Kit, ephemeral for a dry run, in the channel for
 * applied changes. The caller is authorised again here, as the worker acts on its payload alone.
 *
 * A failure is posted (as an ephemeral message, without a stack) and the handler returns normally:
 * the user is owed an answer, and a retry would repeat the job (a second pipeline, or changes applied
 * again on a half-finished plan). sst.config.ts also turns off Lambda's retries of this asynchronously
 * invoked function, for what no handler can catch: a timeout, or the process running out of memory.
 * Only an invalid event throws (or one of the kind the other worker takes), since then nothing has
 * run and nothing can be repeated.
 *
 * A chat command that waited more than 25 minutes in the queue is not run, and the user is told (while
 * Slack still takes posts to its response_url). An event runs once: its correlation id is claimed first
 * (functions/shared/state/claims.ts), so an event re-sent by hand (Lambda itself does not retry it) is
 * logged and dropped. Each run's metrics are emitted and an
 * applying run's report is kept for restore (functions/shared/runs/lifecycle.ts); the result goes to the command's
 * thread, not to the channel's webhook, unless the thread did not take it and the run changed something (an
 * exemption's merge request opened, too).
 *
 * It also enforces the subject of GitLab's events (invoked asynchronously by functions/events.ts):
 * that project or group alone, as functions/shared/events/subject-run.ts says, once per event as well.
 */
import { errorText, escapeMrkdwn, mayHaveChanged, renderSlack, type SlackMessage } from "../lib/jobs/index.ts";
import { redactStrings } from "../lib/redact/index.ts";
import { secrets } from "./shared/config/secrets.ts";
import { workerTakes } from "./shared/config/settings.ts";
import { runForSubject, type SubjectRun } from "./shared/events/subject-run.ts";
import { jobLambda } from "./shared/lambda/handler.ts";
import { logger } from "./shared/lambda/logger.ts";
import type { TimeLeft } from "./shared/lambda/time-left.ts";
import { describeRequest, WorkerEventSchema, type WorkerEvent } from "./shared/runs/job-request.ts";
import { runLifecycle, RunRefused } from "./shared/runs/lifecycle.ts";
import { notifyRun, postRunSummary, type WebhookMessage } from "./shared/runs/notify.ts";
import { verdict } from "./shared/runs/outcome.ts";
import { runJob, type JobReport } from "./shared/runs/run-job.ts";
import { runLabels } from "./shared/runs/triggers.ts";
import { refusal } from "./shared/slack/authorise.ts";
import { notChecked } from "./shared/slack/not-checked.ts";
import { proposeExemption } from "./shared/slack/exempt-run.ts";
import { postToResponseUrl } from "./shared/slack/post-response.ts";
import { ephemeral, quoted, type TextMessage } from "./shared/slack/reply.ts";
import { dynamoClaims } from "./shared/state/claims.ts";

/** What the deployment's webhook may be told if the thread does not take the answer (tellChannelInstead). */
type Ran = { report: JobReport } | { exemption: WebhookMessage };

/** `ran` is told the report of a run the policy let the caller start, or the message of an exemption opened. */
async function outcome(event: WorkerEvent, signal: AbortSignal, timeLeft: TimeLeft, ran: (what: Ran) => void): Promise<SlackMessage | TextMessage> {
  const command = describeRequest(event.command);
  const asker = { userId: event.user.id, channelId: event.channelId };
  const request = event.command;
  // A merge request on the policy repository, not a run with a report (functions/shared/slack/exempt-run.ts).
  if (request.job === "exempt") {
    const exemption = await proposeExemption(request, asker, signal);
    if (exemption.opened) ran({ exemption: exemption.message });
    return exemption.message;
  }
  // Until the policy has let the caller run the command, they learn nothing of why it failed: with the
  // policy in a repository, anyone in the workspace gets this far (chat-ops cannot judge them).
  let allowed = false;
  try {
    const life = { labels: runLabels(request.job, "chat", event.correlationId), timeLeft, signal, asked: { command, user: event.user.id, channel: event.channelId } };
    const { report } = await runLifecycle(life, async ({ policy }) => {
      const refused = refusal(policy, asker, request);
      if (refused) throw new RunRefused(refused);
      allowed = true;
      return runJob(request, signal, policy);
    });
    ran({ report });
    return renderSlack(report);
  } catch (err) {
    if (!(err instanceof RunRefused) && !allowed) return notChecked(request, err);
    // Escaped as every text Warden did not write: an error quotes GitLab, n8n or a proxy, a refusal the policy's source.
    if (!(err instanceof RunRefused)) return ephemeral(`:x: Warden ${quoted(command)} failed: ${escapeMrkdwn(errorText(err))}`);
    logger.warn("chat-command refused", { command, user: event.user.id, channel: event.channelId, reason: err.message });
    return ephemeral(`:no_entry: ${escapeMrkdwn(err.message)}`);
  }
}

const claims = dynamoClaims();

/**
 * The longest a chat command may wait in the Worker's queue and still run: Slack takes posts to its
 * response_url for 30 minutes, and a person who asked for a change hours ago (a flood in front of it,
 * Lambda keeps queued events for 6) would not expect it to happen now, unseen.
 */
const MAX_QUEUED_SECONDS = 25 * 60;

/** Long past the 30 minutes Slack takes posts to a response_url: a later copy could tell nobody anyway. */
const CLAIM_SECONDS = 24 * 3600;

/**
 * Whether this is the event's first delivery: "unknown" when the claims table cannot tell, and then
 * the event is not run (a chat user is told; a subject's next event, or the schedule, comes again).
 */
async function firstDelivery(correlationId: string, what: string): Promise<"first" | "repeat" | "unknown"> {
  try {
    if (await claims.claim(`worker:${correlationId}`, Math.floor(Date.now() / 1000) + CLAIM_SECONDS)) return "first";
    logger.warn("worker event already received: not run again", { command: what });
    return "repeat";
  } catch (err) {
    logger.error("the claims table could not be reached: not run", { command: what, error: errorText(err) });
    return "unknown";
  }
}

/**
 * A deployed worker takes one kind of event (sst.config.ts: Worker a chat command's, EventsWorker a
 * subject's), each with its own queue and only its own jobs' permissions; unset, it takes both.
 */
function refuseOtherKind(kind: "chat" | "subject"): void {
  const takes = workerTakes();
  if (!takes || takes === kind) return;
  const other = kind === "chat" ? "Worker" : "EventsWorker";
  throw new Error(`this worker takes ${takes} events (WARDEN_WORKER_TAKES=${takes}), not a ${kind} event: nothing was run; invoke the stage's ${other} function with it`);
}

export const handler = jobLambda(WorkerEventSchema, async (event, context): Promise<{ posted: boolean } | SubjectRun> => {
  refuseOtherKind(event.kind ?? "chat");
  // Log lines join the chat-ops (or Events) request's that started this run.
  logger.setCorrelationId(event.correlationId);
  // Every step after the run gets only a slice of the time left (functions/shared/lambda/time-left.ts).
  const timeLeft = () => context.getRemainingTimeInMillis();
  if (event.kind === "subject") {
    const what = `enforce ${event.subject.kind} ${event.subject.id}`;
    if ((await firstDelivery(event.correlationId, what)) !== "first") return { subject: what, ran: false, removed: 0 };
    return runForSubject(event, context.signal, timeLeft);
  }
  const command = describeRequest(event.command);
  const waited = event.sentAt === undefined ? 0 : Math.floor(Date.now() / 1000) - event.sentAt;
  if (waited > MAX_QUEUED_SECONDS) {
    logger.warn("chat command waited too long to start: not run", { command, user: event.user.id, waitedSeconds: waited });
    const message = ephemeral(`:x: Warden did not run ${quoted(command)}: it waited ${Math.floor(waited / 60)} minutes to start (more commands were queued than the Worker runs at once). Run it again if it is still wanted.`);
    return { posted: await postToResponseUrl(event.responseUrl, message, timeLeft).catch(() => false) };
  }
  const first = await firstDelivery(event.correlationId, command);
  if (first === "unknown") {
    const message = ephemeral(`:x: Warden could not make sure ${quoted(command)} runs only once, so it did not run it.`);
    await postToResponseUrl(event.responseUrl, message, timeLeft).catch(() => undefined);
  }
  if (first !== "first") return { posted: false };
  let ran: Ran | undefined;
  // Read now, with the run's own settings (the secret is cached for the run): read after a long run, a Secrets
  // Manager that does not answer would hold the Worker until Lambda ends it, and nobody would be told.
  const webhookUrl = secrets.get().then((s) => s.slackWebhookUrl, () => undefined);
  const message = await outcome(event, context.signal, timeLeft, (what) => (ran = what));
  const posted = await postToResponseUrl(event.responseUrl, message, timeLeft).catch((err: unknown) => {
    logger.error("posting the result to Slack failed", { command, error: errorText(err) });
    return false;
  });
  if (!posted && ran) await tellChannelInstead(ran, event, await webhookUrl, timeLeft);
  return { posted };
});

/**
 * A run that changed something (or may have: mayHaveChanged) whose answer Slack did not take (the command's response_url expired after its
 * 30 minutes, a run having waited and worked past them; or Slack failed that one post): its summary goes to the
 * deployment's webhook instead, as a scheduled run's would, so that an applied change is not left unseen. An
 * exemption's merge request likewise, in the thread's own message (escaped by exempt-run.ts).
 */
async function tellChannelInstead(ran: Ran, event: WorkerEvent, webhookUrl: string | undefined, timeLeft: TimeLeft): Promise<void> {
  if ("report" in ran && verdict(ran).changed === 0 && (ran.report.dryRun || !ran.report.actions.some(mayHaveChanged))) return;
  const told =
    "report" in ran
      ? await notifyRun(ran, runLabels(ran.report.job, "chat", event.correlationId), { webhookUrl, setting: "always" }, timeLeft)
      : webhookUrl !== undefined && (await postRunSummary(webhookUrl, redactStrings({ text: ran.exemption.text, blocks: ran.exemption.blocks }), timeLeft));
  logger.warn(told ? "the result was not posted to the command's thread: told on the deployment's webhook instead" : "the result was not posted to the command's thread, nor to a webhook (none set, or it failed): its report (an exemption: its audit line) is in the log", { command: describeRequest(event.command) });
}
