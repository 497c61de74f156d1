/**
 * Runs the job a request names, with clients built from the environment and the secret, and gets
 * past one credential rotation: if the job fails because GitLab or n8n answered 401, the cached secret
 * is always dropped; then the secret is read again and, when it holds a new credential, the job runs
 * once more with fresh clients.
 *
 * It runs once more only when that cannot repeat a change: a dry run changes nothing; otherwise the
 * job must have sent nothing but reads before the 401. (The jobs record a failed change on its action
 * rather than throw, so a 401 that throws comes before any change; the clients' counts of what was
 * sent make that a fact checked here rather than a property of the jobs' internals.)
 */
import type { GitLabClient } from "../../../lib/gitlab/index.ts";
import { enforce, reconcileWorkflows, restore, runPipeline, type EnforceOptions, type EnforceReport, type PipelineReport, type RestoreReport, type WorkflowsReport } from "../../../lib/jobs/index.ts";
import type { Policy } from "../../../lib/policy/index.ts";
import { gitlabClient, isRefusedCredential, n8nClient, pipelineClient, pipelineField } from "../config/clients.ts";
import { secrets, type Secrets } from "../config/secrets.ts";
import { loadPolicy } from "../config/policy.ts";
import { audit, logger } from "../lambda/logger.ts";
import { makesChanges, type ExemptJobRequest, type RunRequest } from "./job-request.ts";

export type JobReport = EnforceReport | WorkflowsReport | PipelineReport | RestoreReport;

type HttpClient = GitLabClient["http"];

interface Started<T = JobReport> {
  /** The job's clients, to count what it sent. */
  http: HttpClient[];
  report: Promise<T>;
}

/**
 * What a job takes besides its request, from the function that runs it: the EventsWorker's removal
 * budget, and `sent`, told the requests the job sent (each attempt of a rotation's), whether it
 * finished or threw (the EventsWorker's request budget).
 */
export type JobPorts = Pick<EnforceOptions, "removalBudget"> & { sent?: (requests: number) => void };

/** `policy`: the one this run already read (a policy in GitLab costs a request per read). */
export async function runJob(request: RunRequest, signal: AbortSignal, read?: Policy, ports: JobPorts = {}): Promise<JobReport> {
  const policy = read ?? (await loadPolicy(signal));
  const { sent, ...job } = ports;
  return withCredentials(request, (credentials) => {
    const started = start(request, policy, credentials, signal, job);
    return sent ? { ...started, report: started.report.finally(() => sent(started.http.reduce((n, http) => n + http.stats.totals.requests, 0))) } : started;
  });
}

/** Runs `go` with the secret's credentials, and once more after a rotation where that cannot repeat a change (above). */
export async function withCredentials<T>(request: RunRequest | ExemptJobRequest, go: (credentials: Secrets) => Started<T>): Promise<T> {
  const used = await secrets.get();
  const first = go(used);
  try {
    return await first.report;
  } catch (err) {
    if (!isRefusedCredential(err)) throw err;
    // Whether or not this run may go again, the container must not keep a refused credential for the
    // rest of the cache's 5 minutes: whatever reads the secret next reads it anew.
    secrets.invalidate();
    if (makesChanges(request) && sentChanges(first.http)) throw err;
    const fresh = await secrets.get();
    // The same credential again would be refused again.
    if (credential(request, fresh) === credential(request, used)) throw err;
    logger.warn("credential refused; the secret holds a new one: running the job once more", { job: request.job });
    return go(fresh).report;
  }
}

function start(request: RunRequest, policy: Policy, credentials: Secrets, signal: AbortSignal, ports: Omit<JobPorts, "sent">): Started {
  switch (request.job) {
    case "enforce": {
      const gitlab = gitlabClient(credentials);
      const targets = "targets" in request ? { targets: request.targets, ...ports } : {};
      // A targeted run refuses the rules the last full run found matching nothing; every run leaves uncounted the removals GitLab refused it.
      const swept = "lastSweep" in request && request.lastSweep ? { lastSweep: request.lastSweep } : {};
      return { http: [gitlab.http], report: enforce({ gitlab, policy, apply: request.apply, signal, audit, ...targets, ...swept }) };
    }
    case "workflows": {
      const n8n = n8nClient(credentials);
      // The Workflows function's run leaves uncounted the changes n8n refused its last one for good; a chat command's is told none.
      const refused = "lastRefusals" in request && request.lastRefusals ? { lastRefusals: request.lastRefusals } : {};
      return { http: [n8n.http], report: reconcileWorkflows({ n8n, policy, apply: request.apply, signal, audit, ...refused }) };
    }
    case "pipeline": {
      const gitlab = pipelineClient(credentials);
      const { project, ref, variables, apply } = request;
      return { http: [gitlab.http], report: runPipeline({ gitlab, policy, project, ref, variables, apply, signal, audit }) };
    }
    case "restore": {
      const gitlab = gitlabClient(credentials);
      return { http: [gitlab.http], report: restore({ gitlab, policy, input: request.input, apply: request.apply, includeStray: request.includeStray, signal, audit }) };
    }
  }
}

/** The credential the job's requests carry: the one a rotation must have changed to be worth a second run. */
function credential(request: RunRequest | ExemptJobRequest, credentials: Secrets): string | undefined {
  if (request.job === "workflows") return credentials.n8nApiKey;
  return request.job === "pipeline" ? credentials[pipelineField(credentials)] : credentials.gitlabToken;
}

/** Whether any request but a read was sent. */
function sentChanges(clients: HttpClient[]): boolean {
  return clients.some((client) => !client.stats.onlyReads());
}
