/**
 * What a job run is asked for: a chat command, which is also the worker's whole event (validated again
 * on arrival, because the worker acts on it, and POSTs to its response_url, with nobody else
 * checking), the subject of GitLab events (functions/events.ts: the worker enforces that project or
 * group alone), or a restore asked of the Enforce function from the console (functions/shared/runs/scheduled.ts).
 */
import { z } from "zod";
import type { EnforceTarget, LastSweep, RestoreInput } from "../../../lib/jobs/index.ts";
import type { LastRefusals } from "../../../lib/jobs/workflows/index.ts";
import { isAllowedResponseUrl } from "../config/slack.ts";

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
  // An exemption is proposed as a merge request, reviewed before it applies: there is no dry run of it in chat.
  z.strictObject({
    job: z.literal("exempt"),
    project: text,
    group: text,
    until: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
    reason: text,
    apply: z.literal(true),
  }),
]);

/** What a chat command can ask for, and so what the worker accepts. */
export type JobRequest = z.infer<typeof JobRequestSchema>;

/** Re-creating what an enforce run removed: asked from the console only (an event to the Enforce function), never from chat. */
export interface RestoreRequest {
  job: "restore";
  apply: boolean;
  input: RestoreInput;
  /** Re-create shares the policy does not allow too (the event's "includeStray"). */
  includeStray: boolean;
}

/** Enforce limited to part of the scope (the subject of GitLab events: functions/shared/events/subject-run.ts), or a sweep told what the last one found. */
export interface TargetedEnforceRequest {
  job: "enforce";
  apply: boolean;
  targets?: EnforceTarget[];
  /** What the last full run found (functions/shared/state/last-sweep.ts): a targeted run refuses the rules it found matching nothing; any run's guard leaves uncounted the removals GitLab refused it. */
  lastSweep?: LastSweep;
}

/** A run of the Workflows function, told what its last run n8n refused for good (functions/shared/state/workflows-refusals.ts): its guard does not count those changes. */
export interface RememberingWorkflowsRequest {
  job: "workflows";
  apply: boolean;
  lastRefusals?: LastRefusals;
}

/** An exemption request (functions/shared/slack/exempt-run.ts): not a run with a report, so not runJob's. */
export type ExemptJobRequest = Extract<JobRequest, { job: "exempt" }>;

/** Everything runJob runs. */
export type RunRequest = Exclude<JobRequest, ExemptJobRequest> | RestoreRequest | TargetedEnforceRequest | RememberingWorkflowsRequest;

const ChatWorkerEventSchema = z.strictObject({
  kind: z.literal("chat").optional(),
  command: JobRequestSchema,
  responseUrl: z.string().refine(isAllowedResponseUrl, { message: "not a Slack response_url" }),
  user: z.strictObject({ id: text, name: z.string() }),
  channelId: text,
  /** The chat-ops request id, so the worker's log lines join the acknowledgement's. */
  correlationId: text,
  /** When Slack sent the command (Unix seconds, its signed timestamp): the worker runs none that waited too long (absent from older chat-ops). */
  sentAt: z.number().int().positive().optional(),
});

/** The project or group GitLab's events named, and those events (ids and times, for the logs and the latency metric). */
const SubjectWorkerEventSchema = z.strictObject({
  kind: z.literal("subject"),
  subject: z.strictObject({ kind: z.enum(["project", "group"]), id: z.number().int().positive(), path: text.optional() }),
  events: z.array(z.strictObject({ id: text, name: text, createdAt: z.iso.datetime({ offset: true }).optional() })).min(1),
  /** The Events request id and the subject, so each subject's run is claimed once and its log lines join the request's. */
  correlationId: text,
});

/** A chat command's event (no `kind`, as chat-ops has always sent it), or a subject's. */
export const WorkerEventSchema = z.discriminatedUnion("kind", [ChatWorkerEventSchema, SubjectWorkerEventSchema]);

/** Whatever the worker accepts. */
export type WorkerInvocation = z.infer<typeof WorkerEventSchema>;
/** A chat command's event. */
export type WorkerEvent = z.infer<typeof ChatWorkerEventSchema>;
export type SubjectWorkerEvent = z.infer<typeof SubjectWorkerEventSchema>;

/** Whether running the request may change GitLab or n8n: only with --apply (a pipeline's too; an exemption request always). */
export function makesChanges(request: RunRequest | ExemptJobRequest): boolean {
  return request.apply;
}

/** The request as a person would type it, variable values and a reason left out (they may be secrets; paths are checked GitLab paths). */
export function describeRequest(request: JobRequest): string {
  if (request.job === "exempt") return ["exempt", request.project, request.group, ...(request.until ? ["until", request.until] : []), "reason …"].join(" ");
  const apply = request.apply ? ["--apply"] : [];
  if (request.job !== "pipeline") return [request.job, ...apply].join(" ");
  const names = request.variables.map((v) => `${v.key}=…`);
  return ["pipeline", request.project, request.ref, ...names, ...apply].join(" ");
}
