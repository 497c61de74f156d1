/**
 * The pipeline job: start a pipeline only where the policy allows the project, the ref and every
 * variable, and the ref is a branch or tag of the project. Without `apply` it is a dry run like every
 * other job: the same checks, GETs only, and a report of what would start. A pipeline POST is not
 * idempotent, so an answer that leaves it unclear whether GitLab started one is reported as unknown,
 * never retried into a second pipeline.
 */
import { HttpError, NetworkError, type GitLabClient, type Project } from "../../gitlab/index.ts";
import { evaluatePipeline, type Policy } from "../../policy/index.ts";
import { pipelineRequestProblem } from "../../policy/refs.ts";
import { auditedUnder, errorText, jobStats, type AuditSink, type Report } from "../report.ts";
import { makeReport } from "../envelope.ts";

export interface PipelineAction {
  type: "create-pipeline";
  project: string;
  ref: string;
  /** Names only: values may be secrets and stay out of reports and logs. */
  variables: string[];
  /** What the ref names in the project (a branch is looked up first, as GitLab resolves it), and its commit. */
  refKind?: "branch" | "tag";
  commit?: string;
  /** "planned": a dry run found it allowed and would start it. */
  status: "planned" | "created" | "refused" | "failed" | "unknown";
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
  /** Start the pipeline; without it, a dry run. */
  apply?: boolean;
  signal?: AbortSignal;
  audit?: AuditSink;
}

/** Answers to a POST that leave it open whether GitLab started the pipeline: its own 500, or a proxy giving up. */
const AMBIGUOUS = new Set([500, 502, 503, 504]);

export async function runPipeline(opts: PipelineOptions): Promise<PipelineReport> {
  const apply = opts.apply === true;
  const startedAt = Date.now();
  const action: PipelineAction = { type: "create-pipeline", project: opts.project, ref: opts.ref, variables: opts.variables.map((v) => v.key), status: "refused" };
  const summary: PipelineSummary = { allowed: false };

  // A policy without the section is a setup error to name, not a refusal of this one request.
  if (opts.policy.pipelines === undefined) throw new Error("the policy has no pipelines section: add pipelines.allow to say which projects, refs and variables may be started");
  const checked = await check(opts);
  if (checked.project) action.project = checked.project.path_with_namespace;
  if (!checked.allowed) action.reason = checked.reason;
  else {
    Object.assign(summary, { allowed: true, rule: checked.rule });
    Object.assign(action, checked.ref);
    if (apply) await create(opts.gitlab, checked.project.id, opts, action);
    else action.status = "planned";
  }

  // One audit line per pipeline start asked for; a dry run starts nothing.
  const { project, ref, status, pipelineId, webUrl, reason, error } = action;
  if (apply) auditedUnder(opts.audit, opts.policy)?.info("create-pipeline", { project, ref, variables: action.variables, outcome: status, pipelineId, webUrl, reason, error });
  const run = { job: "pipeline", dryRun: !apply, policy: opts.policy, gitlab: opts.gitlab.http, startedAt } as const;
  return makeReport(run, { summary, actions: [action], stats: jobStats([opts.gitlab.http], startedAt), warnings: [] });
}

type FoundRef = Pick<PipelineAction, "refKind" | "commit">;
type Checked = { allowed: true; rule: string; project: Project; ref: FoundRef } | { allowed: false; reason: string; project?: Project };

/**
 * Every check a start must pass, reads only. What the request itself names is refused before any
 * call; then the project GitLab really resolves it to is judged, so an old path (301 after a rename
 * or transfer) cannot borrow another's rule; last, the ref must be a branch or tag of that project.
 */
async function check({ gitlab, policy, project: asked, ref, variables, signal }: PipelineOptions): Promise<Checked> {
  const judge = (projectPath: string) => evaluatePipeline(policy, { projectPath, ref, variables });
  const problem = pipelineRequestProblem(ref, variables);
  if (problem !== undefined) return { allowed: false, reason: problem };
  const byRequest = judge(asked);
  if (!byRequest.allowed) return byRequest;
  const project = await findProject(gitlab, asked, signal);
  if (project === undefined) return { allowed: false, reason: `project ${asked} not found, or the token cannot see it` };
  const verdict = judge(project.path_with_namespace);
  if (!verdict.allowed) return { ...verdict, project };
  const found = await findRef(gitlab, project.id, ref, signal);
  if (found === undefined) return { allowed: false, reason: `ref ${ref} is neither a branch nor a tag of project ${project.path_with_namespace}`, project };
  return { ...verdict, project, ref: found };
}

/** The project by path or id, or undefined when GitLab answers 404 (no such project, or the token cannot see it). */
async function findProject(gitlab: GitLabClient, project: string, signal?: AbortSignal): Promise<Project | undefined> {
  try {
    return await gitlab.getProject(project, signal);
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return undefined;
    throw err;
  }
}

/** A branch of that name, else a tag: the order in which GitLab resolves a pipeline's ref. */
async function findRef(gitlab: GitLabClient, projectId: number, ref: string, signal?: AbortSignal): Promise<FoundRef | undefined> {
  const branch = await gitlab.findBranch(projectId, ref, signal);
  if (branch) return { refKind: "branch", commit: branch.commit.id };
  const tag = await gitlab.findTag(projectId, ref, signal);
  return tag && { refKind: "tag", ...(tag.commit ? { commit: tag.commit.id } : {}) };
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
