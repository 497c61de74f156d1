/**
 * The pipeline job: start a pipeline only where the policy allows the project, the ref and every
 * variable, and the ref is a branch or tag of the project that GitLab protects (unless the rule says
 * `unprotected: true`). Without `apply` it is a dry run like every other job: the same checks, GETs
 * only, and a report of what would start. A pipeline POST is not idempotent, so an answer that leaves
 * it unclear whether GitLab started one is reported as unknown, never retried into a second pipeline.
 * GitLab takes a ref name, not a commit: a pipeline that runs another commit than the one checked
 * (the ref moved in between) is cancelled and reported. What the ref's CI file includes and triggers
 * is judged too (ci-sources.ts): whoever writes those runs code with Warden's identity as well.
 */
import { mayHaveBeenMade, type GitLabClient, type Pipeline, type Project } from "../../gitlab/index.ts";
import { evaluatePipeline, type Policy } from "../../policy/index.ts";
import { pipelineRequestProblem } from "../../policy/refs.ts";
import { auditedUnder, errorText, jobStats, type AuditSink, type Report } from "../report/index.ts";
import { makeReport } from "../envelope.ts";
import { ciConfigProblem } from "./ci-config.ts";
import { ciSourcesProblem } from "./ci-sources.ts";
import { findProject, findRef, protectionProblem, type FoundRef } from "./ref.ts";

export interface PipelineAction {
  type: "create-pipeline";
  project: string;
  ref: string;
  /** Names only: values may be secrets and stay out of reports and logs. */
  variables: string[];
  /** What the ref names in the project (never both: GitLab refuses such a ref), and its commit. */
  refKind?: "branch" | "tag";
  commit?: string;
  /** Whether GitLab protects the ref; absent when GitLab did not say (then it counts as unprotected). */
  refProtected?: boolean;
  /** "planned": a dry run found it allowed and would start it. */
  status: "planned" | "created" | "refused" | "failed" | "unknown";
  reason?: string;
  pipelineId?: number;
  pipelineStatus?: string;
  webUrl?: string;
  /** The commit the started pipeline runs, when it is not `commit` (it was then cancelled). */
  pipelineCommit?: string;
  error?: string;
}

export interface PipelineSummary {
  allowed: boolean;
  rule?: string;
}

export type PipelineReport = Report<PipelineAction, PipelineSummary>;

export interface PipelineOptions {
  /**
   * Every request of the job: the front ends pass a client with the pipeline token where the
   * deployment has one, so the checks see what the identity the pipeline runs as sees.
   */
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


export async function runPipeline(opts: PipelineOptions): Promise<PipelineReport> {
  const apply = opts.apply === true;
  const startedAt = Date.now();
  const action: PipelineAction = { type: "create-pipeline", project: opts.project, ref: opts.ref, variables: opts.variables.map((v) => v.key), status: "refused" };
  const summary: PipelineSummary = { allowed: false };

  // A policy without the section is a setup error to name, not a refusal of this one request.
  if (opts.policy.pipelines === undefined) throw new Error("the policy has no pipelines section: add pipelines.allow to say which projects, refs and variables may be started");
  const checked = await check(opts);
  if (checked.project) action.project = checked.project.path_with_namespace;
  if (checked.ref) {
    const { openToDevelopers: _, ...shown } = checked.ref;
    Object.assign(action, shown);
  }
  if (!checked.allowed) action.reason = checked.reason;
  else {
    Object.assign(summary, { allowed: true, rule: checked.rule });
    if (apply) await create(opts.gitlab, checked.project.id, opts, action);
    else action.status = "planned";
  }

  // One audit line per pipeline start asked for; a dry run starts nothing.
  const { project, ref, status, pipelineId, webUrl, reason, error } = action;
  if (apply) auditedUnder(opts.audit, opts.policy)?.info("create-pipeline", { project, ref, variables: action.variables, outcome: status, pipelineId, webUrl, reason, error });
  const run = { job: "pipeline", dryRun: !apply, policy: opts.policy, gitlab: opts.gitlab, startedAt } as const;
  return makeReport(run, { summary, actions: [action], stats: jobStats([opts.gitlab.http], startedAt), warnings: [] });
}

type Checked = { allowed: true; rule: string; project: Project; ref: FoundRef } | { allowed: false; reason: string; project?: Project; ref?: FoundRef };

/** The most pipelines elsewhere one start's configurations trigger that are judged (GitLab's own limit of a pipeline's downstream pipelines is far above). */
const MAX_DOWNSTREAM = 20;

/** What a run's checks of downstream pipelines found, by project, ref and variable names: each judged once. */
interface Judged {
  verdicts: Map<string, Promise<string | undefined>>;
  /** Those being judged now, up the chain of triggers that asked. */
  judging: Set<string>;
}

/**
 * Every check a start must pass, reads only. What the request itself names is refused before any
 * call; then the project GitLab really resolves it to is judged, so an old path (301 after a rename
 * or transfer) cannot borrow another's rule; then the ref must be a branch or tag of that project,
 * protected unless the rule says otherwise, whose CI file the project takes from the ref itself
 * (ci-config.ts), with a known commit to compare the pipeline's with; last, what that CI file includes
 * and triggers (ci-sources.ts), each pipeline it starts elsewhere judged by these same checks.
 */
async function check(opts: PipelineOptions, depth = 0, judged: Judged = { verdicts: new Map(), judging: new Set() }): Promise<Checked> {
  const { gitlab, policy, project: asked, ref, variables, signal } = opts;
  const judge = (projectPath: string) => evaluatePipeline(policy, { projectPath, ref, variables });
  const problem = pipelineRequestProblem(ref, variables);
  if (problem !== undefined) return { allowed: false, reason: problem };
  const byRequest = judge(asked);
  if (!byRequest.allowed) return byRequest;
  const project = await findProject(gitlab, asked, signal);
  if (project === undefined) return { allowed: false, reason: `project ${asked} not found, or the token cannot see it` };
  const verdict = judge(project.path_with_namespace);
  // Judged where GitLab resolves it, and refused without saying where that is: whoever typed an old path (or
  // an id) may not see the group it went to, which GitLab, answering them 404, would not show them (a chat viewer).
  if (!verdict.allowed && project.path_with_namespace.toLowerCase() !== asked.toLowerCase()) {
    return { allowed: false, reason: `project ${asked} is not at that path (moved or renamed since, or named by id), and no pipelines.allow rule allows this pipeline where it is: name it by its current path to be told why` };
  }
  if (!verdict.allowed) return { ...verdict, project };
  const found = await findRef(gitlab, project.id, ref, signal);
  if (found === undefined) return { allowed: false, reason: `ref ${ref} is neither a branch nor a tag of project ${project.path_with_namespace}`, project };
  if (found === "ambiguous") return { allowed: false, reason: `ref ${ref} names both a branch and a tag of project ${project.path_with_namespace}: GitLab runs no pipeline on it ("Ref is ambiguous"); rename one of them`, project };
  const unprotected = verdict.unprotected ? undefined : (protectionProblem(found, ref, project.path_with_namespace, verdict.rule) ?? ciConfigProblem(project, ref, verdict.rule));
  if (unprotected !== undefined) return { allowed: false, reason: unprotected, project, ref: found };
  if (found.commit === undefined) return { allowed: false, reason: `GitLab did not say which commit ${found.refKind} ${ref} points at, so the pipeline's could not be checked against it`, project, ref: found };
  if (!verdict.unprotected) {
    // What the pipeline triggers elsewhere must pass these same checks there, with the variables it passes on: each judged once a run.
    const downstream = (path: string, at: string | undefined, passed: readonly string[], below: number) => {
      // The requester's values where theirs are passed on; a name the YAML sets goes with a value of its own (not judged, not $-checked here).
      const given = passed.map((key) => variables.find((v) => v.key === key) ?? { key, value: "" });
      const key = JSON.stringify([path.toLowerCase(), at ?? null, given.map((v) => v.key).sort()]);
      // Asked again while being judged: a pipeline that starts itself again, round a cycle GitLab cuts off only at its depth limit.
      if (judged.judging.has(key)) return Promise.resolve(`it starts project ${path}'s pipeline again from within the pipelines it starts`);
      const known = judged.verdicts.get(key);
      if (known) return known;
      if (judged.verdicts.size >= MAX_DOWNSTREAM) return Promise.resolve(`it starts more than ${MAX_DOWNSTREAM} pipelines elsewhere, which Warden does not judge one by one`);
      judged.judging.add(key);
      const verdict = (async () => {
        const target = at ?? (await findProject(gitlab, path, signal))?.default_branch;
        if (typeof target !== "string") return `project ${path} was not found, or has no default branch`;
        const checked = await check({ ...opts, project: path, ref: target, variables: given }, below, judged);
        return checked.allowed ? undefined : checked.reason;
      })().finally(() => judged.judging.delete(key));
      judged.verdicts.set(key, verdict);
      return verdict;
    };
    const sources = await ciSourcesProblem({ gitlab, project, commit: found.commit, rule: verdict.rule, signal, downstream, depth, variables: variables.map((v) => v.key), ref, refKind: found.refKind });
    if (sources !== undefined) return { allowed: false, reason: sources, project, ref: found };
  }
  return { allowed: true, rule: verdict.rule, project, ref: found };
}

async function create(gitlab: GitLabClient, projectId: number, opts: PipelineOptions, action: PipelineAction): Promise<void> {
  let pipeline: Pipeline;
  try {
    pipeline = await gitlab.createPipeline(projectId, opts.ref, opts.variables, opts.signal);
  } catch (err) {
    // An answer lost after sending, any 5xx or a 2xx that is unreadable or no pipeline leaves it open whether GitLab started the pipeline, as restore takes them.
    const ambiguous = mayHaveBeenMade(err) || opts.signal?.aborted === true;
    action.status = ambiguous ? "unknown" : "failed";
    action.error = ambiguous ? `unknown — check the project's pipelines before retrying (${errorText(err)})` : errorText(err);
    return;
  }
  Object.assign(action, { status: "created", pipelineId: pipeline.id, pipelineStatus: pipeline.status, webUrl: pipeline.web_url });
  if (pipeline.sha !== action.commit) await cancelMoved(gitlab, projectId, pipeline, action, opts.signal);
}

/**
 * The ref moved between the checks and the start (a push, a tag recreated): the pipeline runs a commit
 * nobody checked, so it is cancelled, once (a POST is never repeated), and the run reports a failure.
 */
async function cancelMoved(gitlab: GitLabClient, projectId: number, pipeline: Pipeline, action: PipelineAction, signal?: AbortSignal): Promise<void> {
  const ran = typeof pipeline.sha === "string" ? pipeline.sha : undefined;
  if (ran !== undefined) action.pipelineCommit = ran;
  const what = `the pipeline runs commit ${ran?.slice(0, 8) ?? "unknown (GitLab did not say)"}, not ${action.commit!.slice(0, 8)} that was checked (${action.ref} moved in between)`;
  action.status = "failed";
  try {
    action.pipelineStatus = (await gitlab.cancelPipeline(projectId, pipeline.id, signal)).status;
    action.error = `${what}: cancelled it; check the ${action.refKind} and run the command again`;
  } catch (err) {
    action.error = `${what}, and cancelling it failed: ${errorText(err)}: cancel it at ${pipeline.web_url}`;
  }
}
