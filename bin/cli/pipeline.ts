import { runPipeline } from "../../lib/jobs/index.ts";
import { pipelineRequestProblem } from "../../lib/policy/refs.ts";
import type { Command } from "./command.ts";
import { gitlabFrom, policyFrom, printReport, stderrAudit, UsageError } from "./io.ts";

const USAGE = `Usage: warden pipeline <project-path> <ref> [KEY=VALUE ...] [--policy FILE] [--json] [--debug]

Starts a pipeline on <ref> of <project-path> with the given variables, if the policy's
pipelines.allow has a rule for the project, the ref and every variable. A pipeline start is never
retried once it may have reached GitLab: an unclear answer is reported as "unknown". A ref git
would refuse (such as "a..b" or "main~1") and a variable given twice are refused before any request.

Options:
  --request-timeout SECONDS
                   deadline of each request attempt (default $WARDEN_REQUEST_TIMEOUT, else 60)

Environment: GITLAB_URL, GITLAB_TOKEN (as for enforce).
Exit codes: 0 started, 1 refused, failed or unknown.`;

export const pipelineCommand: Command = {
  name: "pipeline",
  summary: "start a pipeline where the policy allows it",
  usage: USAGE,
  options: {},
  positionals: true,
  async run(args, io) {
    const { values, positionals } = args;
    const [project, ref, ...assignments] = positionals;
    if (!project || !ref) throw new UsageError(`a project path and a ref are required\n\n${USAGE}`);
    const variables = assignments.map((assignment) => {
      const eq = assignment.indexOf("=");
      // The value is never echoed: it may be a secret.
      if (eq < 1) throw new UsageError(`variables are KEY=VALUE, got "${assignment.slice(0, eq < 0 ? undefined : eq)}"`);
      return { key: assignment.slice(0, eq), value: assignment.slice(eq + 1) };
    });
    const problem = pipelineRequestProblem(ref, variables);
    if (problem) throw new UsageError(problem);
    const [policy, gitlab] = [await policyFrom(args, io), gitlabFrom(io)];
    const report = await runPipeline({ gitlab, policy, project, ref, variables, signal: io.signal, audit: stderrAudit(io) });
    return printReport(io, report, values["json"] === true);
  },
};
