/**
 * Starting the worker: one asynchronous invoke (InvocationType Event) of the function
 * WARDEN_WORKER_FUNCTION names, by chat-ops for a command and by the Events function for a subject.
 * Light on purpose: both answer callers that wait (Slack 3 s, GitLab 8 s), and load it at cold start.
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { ConfigError, requireEnv } from "../config/settings.ts";
import type { WorkerInvocation } from "./job-request.ts";

// One attempt, never the SDK's default three: an asynchronous invoke is not idempotent. When AWS has
// queued the event but its answer is lost (a 5xx, a reset socket, a timeout), a retry queues a second
// one, and a second worker runs the job again (a second pipeline). Such a failure is reported as what
// it is, uncertain, rather than retried.
let lambda: LambdaClient | undefined;

/**
 * Each invoke's bound: the SDK has none of its own, and an Invoke API that takes the request and never
 * answers (a network path gone quiet, a VPC without its endpoint) would hold chat-ops past Slack's 3 s and
 * Events past GitLab's 8 s, to Lambda's timeout, with no line said. 2 s in all, as an invoke answers in
 * tens of milliseconds; without throwOnRequestTimeout the SDK only warns when requestTimeout passes, and
 * that timer ends with the answer's headers: the whole call, a body that stalls after them included, has INVOKE_MS.
 */
const INVOKE_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true };
const INVOKE_MS = 2_000;

/** `signal` cuts the invoke sooner (a caller's own deadline); one cut off may have started the worker, as any timeout. */
export async function startWorker(payload: WorkerInvocation, signal?: AbortSignal): Promise<void> {
  lambda ??= new LambdaClient({ maxAttempts: 1, requestHandler: INVOKE_TIMEOUTS });
  const { StatusCode } = await lambda.send(
    new InvokeCommand({ FunctionName: requireEnv("WARDEN_WORKER_FUNCTION"), InvocationType: "Event", Payload: Buffer.from(JSON.stringify(payload)) }),
    { abortSignal: AbortSignal.any([AbortSignal.timeout(INVOKE_MS), ...(signal ? [signal] : [])]) },
  );
  // Not "was not started": a 2xx other than 202 says nothing certain either way (notStarted below).
  if (StatusCode !== 202) throw new Error(`Lambda answered the invoke with ${StatusCode}, not 202`);
}

/**
 * Whether a failed invoke certainly queued nothing: it failed before the request was sent (a setting
 * missing), or Lambda answered with a 4xx and so refused it (throttled, no such function, no
 * permission). Anything else (a 5xx, a connection reset or timeout after the request went out, an
 * unexpected status) may have followed AWS queuing the event.
 */
export function notStarted(err: unknown): boolean {
  if (err instanceof ConfigError) return true;
  const status = (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500;
}
