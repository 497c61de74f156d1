/**
 * The world of a test file about GitLab's events, end to end: the Events function and the EventsWorker
 * (functions/events.ts, functions/worker.ts taking subjects) over the watch world's GitLab
 * (watch-world.ts), with dynalite for the claims and Lambda's Invoke API to hand subjects on.
 */
import { lambdaWorld, type LambdaWorld } from "./lambda-world.ts";
import { WATCH_TOKENS, watchPolicyText, watchWorld } from "./watch-world.ts";

export function eventsWorld(opts: { policy?: string; reportOnly?: boolean } = {}): LambdaWorld {
  return lambdaWorld({
    dynamo: true,
    lambdaApi: true,
    policy: opts.policy ?? watchPolicyText(),
    gitlab: () => ({ dataset: watchWorld(), tokens: WATCH_TOKENS }),
    env: () => ({ WARDEN_REPORT_ONLY: String(opts.reportOnly ?? false), WARDEN_WORKER_FUNCTION: "warden-test-EventsWorker", WARDEN_WORKER_TAKES: "subject" }),
  });
}
