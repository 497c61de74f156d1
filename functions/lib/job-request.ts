/**
 * What a chat command asks the worker to run, and the worker's whole event: validated again on
 * arrival, because the worker acts on it (and POSTs to its response_url) with nobody else checking.
 */
import { z } from "zod";
import { isAllowedResponseUrl } from "./slack-reply.ts";

const text = z.string().min(1);

const JobRequestSchema = z.discriminatedUnion("job", [
  z.strictObject({ job: z.literal("enforce"), apply: z.boolean() }),
  z.strictObject({ job: z.literal("workflows"), apply: z.boolean() }),
  z.strictObject({
    job: z.literal("pipeline"),
    project: text,
    ref: text,
    variables: z.array(z.strictObject({ key: text, value: z.string() })),
  }),
]);

export type JobRequest = z.infer<typeof JobRequestSchema>;

export const WorkerEventSchema = z.strictObject({
  command: JobRequestSchema,
  responseUrl: z.string().refine(isAllowedResponseUrl, { message: "not a Slack response_url" }),
  user: z.strictObject({ id: text, name: z.string() }),
  channelId: text,
  /** The chat-ops request id, so the worker's log lines join the acknowledgement's. */
  correlationId: text,
});

export type WorkerEvent = z.infer<typeof WorkerEventSchema>;

/** Whether running the request may change GitLab or n8n. A pipeline is always a change. */
export function makesChanges(request: JobRequest): boolean {
  return request.job === "pipeline" || request.apply;
}

/** The request as a person would type it, variable values left out (they may be secrets). */
export function describeRequest(request: JobRequest): string {
  if (request.job !== "pipeline") return `${request.job}${request.apply ? " --apply" : ""}`;
  const names = request.variables.map((v) => `${v.key}=…`);
  return ["pipeline", request.project, request.ref, ...names].join(" ");
}
