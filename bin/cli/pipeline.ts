import { runPipeline } from "../../lib/jobs/index.ts";
import { pipelineRequestProblem } from "../../lib/policy/refs.ts";
import { type Command, COMMON_OPTIONS_HELP, FORMAT_HELP } from "./command.ts";
import { auditTrail, pipelineGitlabFrom, policyFrom, printReport, UsageError } from "./io.ts";

const USAGE = `Usage: warden pipeline <project-path> <ref> [KEY=VALUE ...] [--apply] [--audit-log FILE] [--policy FILE] [--format text|markdown|json] [--debug]

Checks a pipeline on <ref> of <project-path> with the given variables, and shows what would start:
the policy's pipelines.allow must have a rule for the project (as GitLab resolves its path), the ref
and every variable, and the ref must be a branch or a tag of the project that GitLab protects (unless
the rule says unprotected: true). Nothing starts without --apply: a dry run sends only GETs. A start
is never retried once it may have reached GitLab: an unclear answer is reported as "unknown". A
pipeline that runs another commit than the one checked (the ref moved in between) is cancelled and
reported as failed. A ref git would refuse (such as "a..b" or "main~1") and a variable given twice are
refused before any request.

Options:
  --apply          start the pipeline
  --audit-log FILE append the start's JSON audit line to FILE
  --policy FILE    policy file (default: $WARDEN_POLICY, else warden.yaml)
${FORMAT_HELP}
${COMMON_OPTIONS_HELP}

Environment: GITLAB_URL, and WARDEN_PIPELINE_TOKEN if set, else GITLAB_TOKEN: every request of the
  command is sent with it, and the pipeline runs as its user (api scope to start, read_api is enough for
  a dry run). GITLAB_TOKEN is needed only without it, or to read the policy from GitLab.
Exit codes: 0 started, 1 refused, failed or unknown, 2 dry run: allowed and would start.`;

export const pipelineCommand: Command = {
  name: "pipeline",
  summary: "start a pipeline where the policy allows it (dry run unless --apply)",
  usage: USAGE,
  options: { apply: { type: "boolean" }, "audit-log": { type: "string" } },
  positionals: true,
  async run(args, io) {
    const { values, positionals } = args;
    const [project, ref, ...assignments] = positionals;
    if (!project || !ref) throw new UsageError(`a project path and a ref are required\n\n${USAGE}`);
    const variables = assignments.map((assignment, i) => {
      const eq = assignment.indexOf("=");
      // Nothing of it is echoed: without a KEY= the whole argument may be a secret's value, pasted where
      // `KEY=$SECRET` was meant, and the error goes to a CI job's log. Its place says which one.
      if (eq < 1) throw new UsageError(`variables are KEY=VALUE; ${ordinal(i + 1)} variable has no KEY= before its value (not shown: it may be a secret)`);
      return { key: assignment.slice(0, eq), value: assignment.slice(eq + 1) };
    });
    const problem = pipelineRequestProblem(ref, variables);
    if (problem) throw new UsageError(problem);
    const [policy, gitlab] = [await policyFrom(args, io), pipelineGitlabFrom(io)];
    const trail = auditTrail(io, args);
    const report = await runPipeline({ gitlab, policy, project, ref, variables, apply: values["apply"] === true, signal: trail.signal, audit: trail.sink }).finally(() => trail.close());
    return trail.exitCode(printReport(io, report, args));
  },
};

/** "the 1st", "the 2nd", "the 11th". */
const ordinal = (n: number) => `the ${n}${[11, 12, 13].includes(n % 100) ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th")}`;
