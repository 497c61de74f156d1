/**
 * The middleware stacks Warden's Lambdas are built from, so each handler file is only its own logic.
 * Every Lambda logs JSON with the Lambda context and the request id as correlation id, and never logs
 * its event (a chat command's carries a response_url, a pipeline's variable values).
 */
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import type { z } from "zod";
import { deadlineSignal, type DeadlineContext } from "./deadline.ts";
import { redactError, redactStrings } from "../../../lib/redact/index.ts";
import { logger } from "./logger.ts";
import { validateEvent } from "./validate-event.ts";

const correlated: MiddlewareObj = {
  before: ({ context }) => logger.setCorrelationId(context.awsRequestId),
};

/** Log lines carry the Lambda context; the event is never logged. */
export const lambdaContextLogged = injectLambdaContext(logger, { resetKeys: true, logEvent: false }) as MiddlewareObj;

export function wardenLambda<Event, Result>() {
  return middy<Event, Result>().use(lambdaContextLogged).use(correlated);
}

/**
 * A Lambda that runs a job: `run` gets the event as validated against `schema`, and a deadline
 * signal in its context. The Lambda itself takes any event, as AWS may deliver one. What it returns,
 * or the error it fails with, passes lib/redact like its log lines: the invoker (a person at the
 * console) sees it, and the runtime logs the error itself.
 */
export function jobLambda<S extends z.ZodType, Result>(schema: S, run: (event: z.output<S>, context: Context & DeadlineContext) => Promise<Result>) {
  return wardenLambda<unknown, Result>()
    .use(validateEvent(schema))
    .use(deadlineSignal())
    .handler((event, context) => redacted(run(event as z.output<S>, context as Context & DeadlineContext)));
}

/** The result, or the error, of a job Lambda's run, as it may leave the process (lib/redact). */
export async function redacted<Result>(run: Promise<Result>): Promise<Result> {
  try {
    return redactStrings(await run);
  } catch (err) {
    throw redactError(err);
  }
}
