/**
 * The Slack slash command endpoint (a Lambda Function URL). Slack wants an answer within 3 seconds,
 * so this only checks the request and starts the worker, which runs the job and posts the result to
 * the command's response_url. In order: normalised headers; Slack's signature over the raw body
 * (else 401, and nothing happens); the form; the caller against the policy; the command; then one
 * asynchronous invoke of the worker and an ephemeral acknowledgement. Nothing here calls GitLab or n8n.
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import httpErrorHandler from "@middy/http-error-handler";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
// report.ts, not the jobs' index: chat-ops runs no job, and must not load them at cold start.
import { errorText } from "../lib/jobs/report.ts";
import { authorizeSlack } from "../lib/policy/index.ts";
import { changeRefusal } from "./lib/authorise.ts";
import { parseCommand, usage } from "./lib/command.ts";
import { loadPolicy, requireEnv } from "./lib/config.ts";
import { HttpStatusError } from "./lib/http-status-error.ts";
import { describeRequest, makesChanges, type WorkerEvent } from "./lib/job-request.ts";
import { wardenLambda } from "./lib/lambda.ts";
import { logger } from "./lib/logger.ts";
import { requireSecret, secrets } from "./lib/secrets.ts";
import { slackCommandForm, type SlackCommandEvent } from "./lib/slack-form.ts";
import { ephemeral } from "./lib/slack-reply.ts";
import { verifySlackRequest } from "./lib/verify-slack-request.ts";

// Started at init, so they overlap the rest of module loading rather than following it. For an
// on-demand cold start, init is still part of the first request's 3 seconds: this shortens that path,
// it does not take the reads off it. Awaited (and any failure reported) when needed.
secrets.get().catch(() => undefined);
loadPolicy().catch(() => undefined);

const lambda = new LambdaClient({});

type Result = APIGatewayProxyStructuredResultV2;

async function acknowledge(event: SlackCommandEvent, context: Context): Promise<Result> {
  const form = event.body;
  const caller = { userId: form.user_id, channelId: form.channel_id };
  // One line per command, whatever became of it.
  const log = (level: "info" | "warn", outcome: string, fields: Record<string, unknown> = {}) =>
    logger[level]("chat-command", { outcome, user: form.user_id, userName: form.user_name, channel: form.channel_id, ...fields });

  const authz = authorizeSlack(await loadPolicy(), caller);
  if (!authz.allowed) {
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
  try {
    await startWorker({ command: parsed.request, responseUrl: form.response_url, user: { id: form.user_id, name: form.user_name }, channelId: form.channel_id, correlationId: context.awsRequestId });
  } catch (err) {
    logger.error("starting the worker failed", { command, error: errorText(err) });
    return reply(`:x: Warden could not start \`${command}\`; nothing was run.`);
  }
  log("info", "started", { command });
  const dryRun = makesChanges(parsed.request) ? "" : " (dry run)";
  return reply(`:hourglass_flowing_sand: Running \`${command}\`${dryRun}; the result will be posted here.`);
}

async function startWorker(payload: WorkerEvent): Promise<void> {
  const { StatusCode } = await lambda.send(
    new InvokeCommand({ FunctionName: requireEnv("WARDEN_WORKER_FUNCTION"), InvocationType: "Event", Payload: Buffer.from(JSON.stringify(payload)) }),
  );
  if (StatusCode !== 202) throw new Error(`the worker was not started (Lambda answered ${StatusCode})`);
}

function reply(text: string): Result {
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(ephemeral(text)) };
}

export const handler = wardenLambda<APIGatewayProxyEventV2, Result>()
  .use(
    httpErrorHandler({
      fallbackMessage: "Internal Server Error",
      // Refusals under 500 are logged where they are decided; the rest are Warden's own failures.
      logger: (error) => {
        if (!(error instanceof HttpStatusError)) logger.error("chat-command failed", error);
      },
    }),
  )
  .use(httpHeaderNormalizer())
  .use(
    verifySlackRequest({
      signingSecret: async () => requireSecret(await secrets.get(), "slackSigningSecret", "chat-ops"),
      onRefused: (reason) => logger.warn("request refused: not signed by Slack", { reason }),
    }),
  )
  .use(slackCommandForm())
  .handler((event, context) => acknowledge(event as unknown as SlackCommandEvent, context));
