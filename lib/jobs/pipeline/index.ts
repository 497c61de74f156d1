/**
 * The pipeline job: start a pipeline only where the policy allows the project, the ref and every
 * variable. A pipeline POST is not idempotent, so an answer that leaves it unclear whether GitLab
 * started one is reported as unknown, never retried into a second pipeline.
 */
import { HttpError, NetworkError, type GitLabClient } from "../../gitlab/index.ts";
import { evaluatePipeline, type Policy } from "../../policy/index.ts";
import { pipelineRequestProblem } from "../../policy/refs.ts";
import { errorText, jobStats, type AuditSink, type Report } from "../report.ts";

export interface PipelineAction {
  type: "create-pipeline";
  project: string;
  ref: string;
  /** Names only: values may be secrets and stay out of reports and logs. */
  variables: string[];
  status: "created" | "refused" | "failed" | "unknown";
  reason?: string;
  pipelineId?: number;
  pipelineStatus?: string;
  webUrl?: string;
  error?: string;
}

export interface PipelineSummary {
  allowed: boolean;
  rule?: string;
}

export type PipelineReport = Report<PipelineAction, PipelineSummary>;

export interface PipelineOptions {
  gitlab: GitLabClient;
  policy: Policy;
  /** Full path as the requester wrote it (or a numeric id). */
  project: string;
  ref: string;
  variables: { key: string; value: string }[];
  signal?: AbortSignal;
  audit?: AuditSink;
}

/** Answers to a POST that leave it open whether GitLab started the pipeline: its own 500, or a proxy giving up. */
const AMBIGUOUS = new Set([500, 502, 503, 504]);

export async function runPipeline(opts: PipelineOptions): Promise<PipelineReport> {
  const { gitlab, policy, ref, variables, signal } = opts;
  const startedAt = Date.now();
  const action: PipelineAction = { type: "create-pipeline", project: opts.project, ref, variables: variables.map((v) => v.key), status: "refused" };
  const summary: PipelineSummary = { allowed: false };

  // A policy without the section is a setup error to name, not a refusal of this one request.
  if (policy.pipelines === undefined) throw new Error("the policy has no pipelines section: add pipelines.allow to say which projects, refs and variables may be started");
  const problem = pipelineRequestProblem(ref, variables);
  const judge = (projectPath: string) => evaluatePipeline(policy, { projectPath, ref, variables });
  // Refuse what the request itself names before any call; then judge the project GitLab really
  // resolves it to, so an old path (301 after a rename or transfer) cannot borrow another's rule.
  let verdict = problem === undefined ? judge(opts.project) : { allowed: false as const, reason: problem };
  if (verdict.allowed) {
    try {
      const project = await gitlab.getProject(opts.project, signal);
      action.project = project.path_with_namespace;
      verdict = judge(project.path_with_namespace);
      if (verdict.allowed) await create(gitlab, project.id, opts, action);
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 404)) throw err;
      verdict = { allowed: false, reason: `project ${opts.project} not found, or the token cannot see it` };
    }
  }
  if (verdict.allowed) Object.assign(summary, { allowed: true, rule: verdict.rule });
  else action.reason = verdict.reason;

  const { project, status, pipelineId, webUrl, reason, error } = action;
  opts.audit?.info("create-pipeline", { project, ref, variables: action.variables, outcome: status, pipelineId, webUrl, reason, error });
  return { job: "pipeline", dryRun: false, summary, actions: [action], stats: jobStats([gitlab.http], startedAt), warnings: [] };
}

async function create(gitlab: GitLabClient, projectId: number, opts: PipelineOptions, action: PipelineAction): Promise<void> {
  try {
    const pipeline = await gitlab.createPipeline(projectId, opts.ref, opts.variables, opts.signal);
    Object.assign(action, { status: "created", pipelineId: pipeline.id, pipelineStatus: pipeline.status, webUrl: pipeline.web_url });
  } catch (err) {
    const ambiguous =
      (err instanceof NetworkError && err.mayHaveReachedServer) || (err instanceof HttpError && AMBIGUOUS.has(err.status)) || opts.signal?.aborted === true;
    action.status = ambiguous ? "unknown" : "failed";
    action.error = ambiguous ? `unknown — check the project's pipelines before retrying (${errorText(err)})` : errorText(err);
  }
}
