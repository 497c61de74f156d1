import { runPipeline } from "../../lib/jobs/index.ts";
import type { Command } from "./command.ts";
import { gitlabFrom, policyFrom, printReport, stderrAudit, UsageError } from "./io.ts";

const USAGE = `Usage: warden pipeline <project-path> <ref> [KEY=VALUE ...] [--policy FILE] [--json] [--debug]

Starts a pipeline on <ref> of <project-path> with the given variables, if the policy's
pipelines.allow has a rule for the project, the ref and every variable. A pipeline start is never
retried once it may have reached GitLab: an unclear answer is reported as "unknown".

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
      if (eq < 1) throw new UsageError(`variables are KEY=VALUE, got "${assignment}"`);
      return { key: assignment.slice(0, eq), value: assignment.slice(eq + 1) };
    });
    const [policy, gitlab] = [await policyFrom(args, io), gitlabFrom(io)];
    const report = await runPipeline({ gitlab, policy, project, ref, variables, signal: io.signal, audit: stderrAudit(io) });
    return printReport(io, report, values["json"] === true);
  },
};
