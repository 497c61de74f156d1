import { reviewShares } from "../../lib/jobs/review/index.ts";
import { reviewChunks, type ReviewFormat } from "../../lib/jobs/render/index.ts";
import { type CliIO, type Command, COMMON_OPTIONS_HELP } from "./command.ts";
import { gitlabFrom, policyFrom, positiveInt, progressLine, reportFormat, UsageError } from "./io.ts";

export const reportCommand: Command = {
  name: "report",
  summary: "the access review: every share in scope, the rule that allows it or why it is stray, who added it (read-only)",
  usage: `Usage: warden report shares [--target PATH]... [--policy FILE] [--format csv|json|markdown|text] [--debug]

Lists every share in the policy's scope — projects shared with groups, and groups shared with
groups — allowed, exempt and stray alike: the project or group, the invited group, the access level,
the expiry, the verdict with the rule that allows it (or why it is stray), and who added it and when
(from GitLab's audit events, within gitlab.attribution.days); for a stray share under onStray
notify, its notice (the open issue, its due date and the days left, or that none is open yet). It is
enforce's examination as a dry run (with its read of the notices), plus attribution for every listed
share: it sends only reads and changes nothing. Attribution
lists the audit events of each group that records a listed share once, newest first; the summary
and stats say how many groups and requests that took.

Options:
  --target PATH    review only within PATH: a group (with its subgroups) or a project, inside the
                   scope; repeat for more
  --list-concurrency N
                   examination requests in flight at once (default 16)
  --policy FILE    policy file (default: $WARDEN_POLICY, else warden.yaml)
  --format FORMAT  text (default), csv (RFC 4180, CRLF line ends, one row per share; control
                   characters shown as escapes; a cell that starts with = + - or @ is prefixed
                   with ' so a spreadsheet shows it as text), markdown, or json (the report's
                   JSON Schema is docs/report.schema.json)
  --json           the same as --format json
${COMMON_OPTIONS_HELP}

Environment:
  GITLAB_URL       scheme and host of the GitLab instance, without /api/v4
  GITLAB_TOKEN     a token with read_api (an administrator's or auditor's sees every share; a
                   group's audit events need Owner of it, or an administrator on self-managed)

Exit codes: 0 the report was written (a stray share is not a failure here), 1 error or an
examination stopped before its end (the report says how far it got).`,
  options: { target: { type: "string", multiple: true }, "list-concurrency": { type: "string" } },
  formats: ["text", "markdown", "json", "csv"],
  positionals: true,
  async run(args, io: CliIO) {
    const [what, ...more] = args.positionals;
    if (what !== "shares" || more.length) {
      throw new UsageError(`warden report takes one report name, shares (warden report shares [options]); got ${JSON.stringify(args.positionals.join(" "))}`);
    }
    const { values } = args;
    // Checked before the policy is read (from GitLab, with --policy-project), as enforce does.
    const listConcurrency = positiveInt(args, "list-concurrency");
    const [policy, gitlab] = [await policyFrom(args, io), gitlabFrom(io, { inFlight: listConcurrency })];
    const progress = progressLine(io);
    const report = await reviewShares({
      gitlab,
      policy,
      ...(values["target"] === undefined ? {} : { targets: values["target"] as string[] }),
      listConcurrency,
      signal: io.signal,
      onProgress: (p) => progress.update(() => `examining ${p.projects} projects, ${p.groups} groups: ${p.shares} shares in scope`),
    }).finally(() => progress.done());
    const format = reportFormat(args, reportCommand.formats) as ReviewFormat;
    const color = Boolean(io.stdout.isTTY) && !io.env["NO_COLOR"];
    const width = io.stdout.isTTY ? io.stdout.columns : undefined;
    // Each chunk passes the redaction point on its way out (io.stdout is redactedIO's).
    for (const chunk of reviewChunks(report, format, { color, ...(width === undefined ? {} : { width }) })) io.stdout.write(chunk);
    return report.summary.complete ? 0 : 1;
  },
};
