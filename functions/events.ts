/**
 * GitLab's events endpoint (a Lambda Function URL): Ultimate's audit event streaming, and a
 * self-managed instance's system hooks. GitLab gives a destination 8 seconds and never retries, so this
 * only checks the request and starts the worker, which enforces each subject the events name
 * (functions/shared/events/subject-run.ts). In order: normalised headers; the token, in constant time, against the
 * secret's field for that sender (else 401, and nothing else happens: no claim, no body read; a secret that
 * cannot be read is a 401 too, logged as this function's failure);
 * the body (413 too large, or too many events or subjects; 400 not JSON); each event claimed once by
 * the hash of the whole event, never its id (functions/shared/events/delivery.ts); one asynchronous invoke of the
 * worker per subject, a bounded number at a time; a 200 with what became of the events, in time: each call
 * to AWS is cut short of GitLab's 8 seconds (CLAIMS_BY_MS, STARTS_BY_MS). Events naming no subject are acknowledged
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

/**
 * GitLab waits 8 s for the answer, whatever AWS does: from when the request is taken, the claims table's
 * calls are cut at CLAIMS_BY_MS (a claim cut off is taken as new), the worker's invokes at STARTS_BY_MS.
 * Each invoke has its own 2 s bound too (start-worker.ts).
 */
const CLAIMS_BY_MS = 6_000;
const STARTS_BY_MS = 7_000;

/** A signal aborted `ms` from now, its reason saying why. */
function cutAfter(ms: number): AbortSignal {
  const controller = new AbortController();
  // Unref'd, as AbortSignal.timeout's timer is: a cut still pending must not hold the process open.
  setTimeout(() => controller.abort(new Error(`cut off ${ms / 1000} s into the delivery, for GitLab's 8 s wait for the answer`)), ms).unref();
  return controller.signal;
}

/**
 * Records that GitLab delivered (the token was checked: only GitLab, or a holder of its token, gets here);
 * never fails the delivery, nor holds it past `signal` (the store takes none: a write still pending then
 * is left to end on its own, and the next delivery tries again).
 */
async function heard(sender: GitLabRequestEvent["sender"], signal: AbortSignal): Promise<void> {
  const now = Date.now();
  if (now - (heardAt[sender] ?? -Infinity) < HEARD_EVERY_MS) return;
  heardAt[sender] = now;
  const written = coverage.delivered(sender, new Date(now).toISOString()).then(
    () => true,
    (err: unknown) => {
      logger.warn("recording the delivery for the sweep's silence check failed", { error: String(err) });
      return false;
    },
  );
  const cut = new Promise<false>((resolve) => (signal.aborted ? resolve(false) : signal.addEventListener("abort", () => resolve(false), { once: true })));
  if (!(await Promise.race([written, cut]))) heardAt[sender] = undefined;
}

type Result = APIGatewayProxyStructuredResultV2;

async function receive(event: GitLabRequestEvent, context: Context): Promise<Result> {
  const claimsSignal = cutAfter(CLAIMS_BY_MS);
  const startSignal = cutAfter(STARTS_BY_MS);
  const events = readDelivery(event);
  // Side by side: a slow record of the delivery leaves the claims their whole time.
  const [tally] = await Promise.all([dispatch(events, { claims, start: startWorker, requestId: context.awsRequestId, claimsSignal, startSignal }), heard(event.sender, claimsSignal)]);
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
