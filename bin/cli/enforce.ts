import { enforce, enforceProgressText } from "../../lib/jobs/index.ts";
import { auditTrail, gitlabFrom, policyFrom, positiveInt, printReport, progressLine } from "./io.ts";
import { type CliIO, type Command, COMMON_OPTIONS_HELP, FORMAT_HELP } from "./command.ts";
import { planOutFrom, savePlan } from "./plan-out.ts";
import { basePolicy, COMPARE_HELP, COMPARE_OPTIONS, comparingFrom, noteComparison } from "./compare.ts";

export const enforceCommand: Command = {
  name: "enforce",
  summary: "remove project and group shares the policy does not allow (dry run unless --apply)",
  usage: `Usage: warden enforce [--apply | --out PLAN | --compare-policy-ref REF [--mr-note]] [--target PATH]... [--audit-log FILE] [--policy FILE] [--format text|markdown|json] [--debug]

Examines the policy's scope — its projects with the groups each is shared with, and its groups
(each scope group and all below it) with the groups each is shared with — and plans the removal of
every share the policy does not allow, of both kinds. Nothing changes without --apply; with it, the
plan is applied unless it exceeds gitlab.guard.maxRemovals (one limit for both kinds), or an allow or
exempt rule matched no share (a typo, most often: each is named; gitlab.guard.unmatchedRules: warn
accepts them; 'warden policy check' finds more before a run). After removing
group shares, each group is read again: GitLab answers success without removing when the token lacks
Owner on the sharing group, and such a share is reported as failed. Group shares cost one
GET /groups/:id per group (GitLab.com allows 400 a minute); shares made by groups above a scope
group reach into it but are outside the scope: they are listed as warnings.

Options:
  --apply          remove the planned shares
  --out PLAN       save the plan (a dry run) to the file PLAN, for review and 'warden apply PLAN'
                   (not written when the examination stops before its end)
  --target PATH    examine and remove only within PATH: a group (with its subgroups) or a project,
                   inside the scope; repeat for more. The guard counts what this run plans; rules
                   that match nothing are reported only by a run over the whole scope
  --concurrency N  removals in flight at once (default 16; an old plan's re-reads go out
                   alongside, as many again)
  --list-concurrency N
                   examination requests in flight at once, project pages and group reads
                   together (default 16). A large scope group is split into partitions (its own
                   projects, each subgroup's tree, again where a branch is large), each following
                   GitLab's links. Defaults suit GitLab.com's budgets and a
                   small self-managed instance; a budget GitLab reports (RateLimit-*, Retry-After)
                   paces requests whatever these say
  --audit-log FILE append one JSON line per change to FILE as it happens (for warden restore)
  --policy FILE    policy file (default: $WARDEN_POLICY, else warden.yaml)
${COMPARE_HELP}
${FORMAT_HELP}
${COMMON_OPTIONS_HELP}

Environment:
  GITLAB_URL       scheme and host of the GitLab instance, without /api/v4
  GITLAB_TOKEN     a token with the api scope: Maintainer or above on the governed projects, Owner on
                   the governed groups (or an administrator's, which also sees every share)

SIGINT, SIGTERM and SIGHUP stop the run: no new removals, requests in flight cancelled (reported as
"may or may not have happened"), every audit line written, the report printed, exit 1. A second
signal exits at once.

Exit codes: 0 in policy or all applied, 1 error, 2 dry run found strays, 3 guard tripped (nothing changed).
With --compare-policy-ref: 0 the change alters nothing, 1 error, 2 it alters something.`,
  options: { apply: { type: "boolean" }, out: { type: "string" }, target: { type: "string", multiple: true }, "audit-log": { type: "string" }, concurrency: { type: "string" }, "list-concurrency": { type: "string" }, ...COMPARE_OPTIONS },
  files: (args, io) => [{ name: "--out", path: planOutFrom(args, io) }],
  async run(args, io: CliIO) {
    const { values } = args;
    // Checked first, as apply and restore do: a flag out of range is refused before the policy is read
    // (from GitLab, with --policy-project) or --audit-log's file is created.
    const concurrency = positiveInt(args, "concurrency");
    const listConcurrency = positiveInt(args, "list-concurrency");
    const out = planOutFrom(args, io);
    const comparing = comparingFrom(args, io.env);
    const [policy, gitlab] = [await policyFrom(args, io, { proposed: comparing !== undefined }), gitlabFrom(io, { inFlight: Math.max(concurrency ?? 0, listConcurrency ?? 0) })];
    const compareWith = comparing && (await basePolicy(gitlab, comparing, io.signal));
    const progress = progressLine(io);
    const trail = auditTrail(io, args);
    const report = await enforce({
      gitlab,
      policy,
      ...(compareWith ? { compareWith } : {}),
      apply: values["apply"] === true,
      ...(values["target"] === undefined ? {} : { targets: values["target"] as string[] }),
      concurrency,
      listConcurrency,
      signal: trail.signal,
      audit: trail.sink,
      onProgress: (p) => progress.update(() => enforceProgressText(p)),
    }).finally(() => {
      progress.done();
      trail.close();
    });
    const code = printReport(io, report, args);
    // After the report, so that a note GitLab refuses still leaves the comparison in the job's log.
    if (comparing?.note) await noteComparison(io, gitlab, report, comparing.note);
    if (out !== undefined) savePlan(io, out, report, policy, values["target"] !== undefined);
    return trail.exitCode(code);
  },
};
