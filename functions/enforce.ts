/**
 * Removes the shares the policy does not allow: daily on schedule, or on demand (see functions/shared/runs/scheduled.ts).
 * Deployed as a durable function (sst.config.ts), each invocation it gets is a durable execution's and
 * the job runs in checkpointed steps across invocations (functions/shared/durable/job.ts); invoked plainly (a
 * function deployed without durable execution, or locally), it runs the job within one invocation.
 */
import type { Context } from "aws-lambda";
import { durableJob, isDurableInvocation } from "./shared/durable/job.ts";
import { scheduledJob } from "./shared/runs/scheduled.ts";

const plain = scheduledJob("enforce");
const durable = durableJob("enforce");

// middy types a durable handler as taking the DurableContext, which withDurableExecution makes from Lambda's.
export const handler = (event: unknown, context: Context) => (isDurableInvocation(event) ? durable(event as never, context as never) : plain(event as never, context));
