/**
 * GitLab's events endpoint (a Lambda Function URL): Ultimate's audit event streaming, and a
 * self-managed instance's system hooks. GitLab gives a destination 8 seconds and never retries, so this
 * only checks the request and starts the worker, which enforces each subject the events name
 * (functions/shared/events/subject-run.ts). In order: normalised headers; the token, in constant time, against the
 * secret's field for that sender (else 401, and nothing else happens: no claim, no body read; a secret that
 * cannot be read is a 401 too, logged as this function's failure);
 * the body (413 too large, or too many events or subjects; 400 not JSON); each event claimed once by
 * the hash of the whole event, never its id (functions/shared/events/delivery.ts); one asynchronous invoke of the
 * worker per subject, a bounded number at a time; a 200 with what became of the events. Events naming no subject are acknowledged
 * and left. Each delivery read (a minute apart at most) is recorded for the sweep's silence check
 * (functions/shared/runs/event-coverage.ts). Nothing here calls GitLab, or can: the function reads only the events' secret.
 */
import type { APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { eventsSecrets } from "./shared/config/secrets.ts";
import { dispatch } from "./shared/events/dispatch.ts";
import { LOGGED_EVENTS, readDelivery } from "./shared/events/delivery.ts";
import { verifyGitLabRequest, type GitLabRequestEvent } from "./shared/events/verify-request.ts";
import { endpointCredential, httpEndpoint } from "./shared/lambda/http-endpoint.ts";
import { logger } from "./shared/lambda/logger.ts";
import { startWorker } from "./shared/runs/start-worker.ts";
import { dynamoClaims } from "./shared/state/claims.ts";
import { dynamoCoverage } from "./shared/state/event-coverage.ts";

// Started at init, so it overlaps the rest of module loading; awaited (and any failure reported) when
// needed. The events' secret: this public function holds no token that acts on GitLab, nor Slack's signing secret.
eventsSecrets.get().catch(() => undefined);

const claims = dynamoClaims();
const coverage = dynamoCoverage();
/** One write a minute per container at most, whatever a flood of deliveries: the sweep judges silence in hours. */
const HEARD_EVERY_MS = 60_000;
const heardAt: Partial<Record<GitLabRequestEvent["sender"], number>> = {};

/** Records that GitLab delivered (the token was checked: only GitLab, or a holder of its token, gets here); never fails the delivery. */
async function heard(sender: GitLabRequestEvent["sender"]): Promise<void> {
  const now = Date.now();
  if (now - (heardAt[sender] ?? -Infinity) < HEARD_EVERY_MS) return;
  heardAt[sender] = now;
  await coverage.delivered(sender, new Date(now).toISOString()).catch((err: unknown) => {
    heardAt[sender] = undefined;
    logger.warn("recording the delivery for the sweep's silence check failed", { error: String(err) });
  });
}

type Result = APIGatewayProxyStructuredResultV2;

async function receive(event: GitLabRequestEvent, context: Context): Promise<Result> {
  const events = readDelivery(event);
  await heard(event.sender);
  const tally = await dispatch(events, { claims, start: startWorker, requestId: context.awsRequestId });
  // Ids and names only, bounded by delivery.ts: never the body.
  logger.info("gitlab-events", { sender: event.sender, ...tally, ids: events.slice(0, LOGGED_EVENTS).map((e) => `${e.name} ${e.id}`) });
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(tally) };
}

export const handler = httpEndpoint("gitlab-events", {
  // A 401's reason is logged where it is decided (onRefused).
  onRefusal: (error) => {
    if (error.statusCode !== 401) logger.warn("gitlab-events refused", { status: error.statusCode, reason: error.message });
  },
})
  .use(
    verifyGitLabRequest({
      tokens: endpointCredential(async () => {
        const { gitlabStreamingToken, gitlabSystemHookToken } = await eventsSecrets.get();
        return { stream: gitlabStreamingToken, systemHook: gitlabSystemHookToken };
      }),
      onRefused: (reason) => logger.warn("request refused: not GitLab's", { reason }),
    }),
  )
  .handler((event, context) => receive(event as GitLabRequestEvent, context));
