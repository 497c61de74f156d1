/**
 * What a job run is asked for: a chat command, which is also the worker's whole event (validated again
 * on arrival, because the worker acts on it, and POSTs to its response_url, with nobody else
 * checking), or a restore asked of the Enforce function from the console (functions/lib/runs/scheduled.ts).
 */
import { z } from "zod";
import type { RestoreInput } from "../../../lib/jobs/restore/input.ts";
import { isAllowedResponseUrl } from "../slack/reply.ts";

const text = z.string().min(1);

const JobRequestSchema = z.discriminatedUnion("job", [
  z.strictObject({ job: z.literal("enforce"), apply: z.boolean() }),
  z.strictObject({ job: z.literal("workflows"), apply: z.boolean() }),
  z.strictObject({
    job: z.literal("pipeline"),
    project: text,
    ref: text,
    variables: z.array(z.strictObject({ key: text, value: z.string() })),
    apply: z.boolean(),
  }),
]);

/** What a chat command can ask for, and so what the worker accepts. */
export type JobRequest = z.infer<typeof JobRequestSchema>;

/** Re-creating what an enforce run removed: asked from the console only (an event to the Enforce function), never from chat. */
export interface RestoreRequest {
  job: "restore";
  apply: boolean;
  input: RestoreInput;
}

/** Everything runJob runs. */
export type RunRequest = JobRequest | RestoreRequest;

export const WorkerEventSchema = z.strictObject({
  command: JobRequestSchema,
  responseUrl: z.string().refine(isAllowedResponseUrl, { message: "not a Slack response_url" }),
  user: z.strictObject({ id: text, name: z.string() }),
  channelId: text,
  /** The chat-ops request id, so the worker's log lines join the acknowledgement's. */
  correlationId: text,
});

export type WorkerEvent = z.infer<typeof WorkerEventSchema>;

/** Whether running the request may change GitLab or n8n: only with --apply (a pipeline's too). */
export function makesChanges(request: RunRequest): boolean {
  return request.apply;
}

/** The request as a person would type it, variable values left out (they may be secrets). */
export function describeRequest(request: JobRequest): string {
  const apply = request.apply ? ["--apply"] : [];
  if (request.job !== "pipeline") return [request.job, ...apply].join(" ");
  const names = request.variables.map((v) => `${v.key}=…`);
  return ["pipeline", request.project, request.ref, ...names, ...apply].join(" ");
}
