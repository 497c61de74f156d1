/**
 * Runs the job a chat command asked for (invoked asynchronously by chat-ops) and posts the result to
 * the command's response_url: the report as Block Kit, ephemeral for a dry run, in the channel for
 * applied changes. The caller is authorised again here, as the worker acts on its payload alone.
 *
 * A failure is posted (as an ephemeral message, without a stack) and the handler returns normally:
 * the user is owed an answer, and a retry would repeat the job (a second pipeline, or changes applied
 * again on a half-finished plan). sst.config.ts also turns off Lambda's retries of this asynchronously
 * invoked function, for what no handler can catch: a timeout, or the process running out of memory.
 * Only an invalid event throws, since then nothing has run and nothing can be repeated.
 */
import { errorText, renderSlack, type SlackMessage } from "../lib/jobs/index.ts";
import { refusal } from "./lib/authorise.ts";
import { loadPolicy } from "./lib/config.ts";
import { describeRequest, WorkerEventSchema, type WorkerEvent } from "./lib/job-request.ts";
import { jobLambda } from "./lib/lambda.ts";
import { logger, logReport } from "./lib/logger.ts";
import { runJob } from "./lib/run-job.ts";
import { postToResponseUrl } from "./lib/post-response.ts";
import { ephemeral, type TextMessage } from "./lib/slack-reply.ts";

async function outcome(event: WorkerEvent, signal: AbortSignal): Promise<SlackMessage | TextMessage> {
  const command = describeRequest(event.command);
  try {
    const refused = refusal(await loadPolicy(), { userId: event.user.id, channelId: event.channelId }, event.command);
    if (refused) {
      logger.warn("chat-command refused", { command, user: event.user.id, channel: event.channelId, reason: refused });
      return ephemeral(`:no_entry: ${refused}`);
    }
    const report = await runJob(event.command, signal);
    logReport(report, { trigger: "chat", user: event.user.id, channel: event.channelId });
    return renderSlack(report);
  } catch (err) {
    logger.error("job failed", { command, error: errorText(err) });
    return ephemeral(`:x: Warden \`${command}\` failed: ${errorText(err)}`);
  }
}

export const handler = jobLambda(WorkerEventSchema, async (event, context): Promise<{ posted: boolean }> => {
  // Log lines join the chat-ops request's that started this run.
  logger.setCorrelationId(event.correlationId);
  const message = await outcome(event, context.signal);
  try {
    await postToResponseUrl(event.responseUrl, message);
    return { posted: true };
  } catch (err) {
    logger.error("posting the result to Slack failed", { command: describeRequest(event.command), error: errorText(err) });
    return { posted: false };
  }
});
