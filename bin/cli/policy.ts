import { enforce, noticesProjectWarning, enforceProgressText, count } from "../../lib/jobs/index.ts";
import { escapeControls, jsonForTerminal } from "../../lib/jobs/render/index.ts";
import { checkPolicy, ruleText, type Policy, type RuleCounts, type RuleList } from "../../lib/policy/index.ts";
import { describePolicySource } from "../../lib/config/policy-source.ts";
import { gitlabFrom, policyFrom, progressLine, reportFormat, UsageError } from "./io.ts";
import { type CliIO, type Command, type ParsedArgs, COMMON_OPTIONS_HELP } from "./command.ts";

export const policyCommand: Command = {
  name: "policy",
  summary: "check a policy file (policy check): offline, or --online with a dry run's examination",
  usage: `Usage: warden policy check [--policy FILE] [--online] [--format text|json]

Checks a policy without changing anything. Offline: the schema (every problem named, as every command
does), rules whose projects or groups lie outside every scope group (they never match), exemptions
whose until has passed, and duplicate or shadowed rules: a rule every share of which an earlier rule
already allows (or exempts). Shadowing is judged exactly for literal paths, \`prefix/**\` and \`**\`;
other wildcards are never called shadowed.

With --online, also examines GitLab as a dry run of enforce does (GETs only) and reports how many
shares each allow and exempt rule matched; a rule that matched none is a warning (one naming a group
or project the instance does not have says so): an applying run refuses to remove anything while one
exists, unless gitlab.guard.unmatchedRules is warn. A notices project (gitlab.shares.notices.project)
that is missing, unreadable or archived is a warning too.

Options:
  --online         examine GitLab too (GITLAB_URL, GITLAB_TOKEN as for warden enforce)
  --policy FILE    policy file (default: $WARDEN_POLICY, else warden.yaml)
  --format FORMAT  text (default) or json
  --json           the same as --format json
${COMMON_OPTIONS_HELP}

Exit codes: 0 no findings, 1 an error (the policy is invalid, or GitLab could not be examined
whole), 2 warnings (CI can gate a policy's merge requests on it).`,
  options: { online: { type: "boolean" } },
  formats: ["text", "json"],
  positionals: true,
  async run(args, io) {
    const [action, ...extra] = args.positionals;
    if (action !== "check" || extra.length) {
      const got = action === undefined ? "nothing" : JSON.stringify([action, ...extra].join(" "));
      throw new UsageError(`expected 'warden policy check', got ${got}: run 'warden policy --help' for the usage`);
    }
    const policy = await policyFrom(args, io);
    const now = new Date();
    const findings = { policy: describePolicySource(policy.source), warnings: checkPolicy(policy, now), notes: [] as string[], rules: [] as { rule: string; shares: number }[] };
    if (args.values["online"] === true) {
      const online = await examine(args, io, policy, now);
      if (online === undefined) return 1;
      Object.assign(findings, { rules: online.rules, notes: online.notes });
      findings.warnings.push(...online.warnings);
    }
    if (reportFormat(args) === "json") io.stdout.write(`${jsonForTerminal(findings, 2)}\n`);
    else io.stdout.write(`${textOf(findings)}\n`);
    return findings.warnings.length ? 2 : 0;
  },
};

/** A dry run's examination: shares per rule, and the rules that matched none; undefined when it was cut short. */
async function examine(args: ParsedArgs, io: CliIO, policy: Policy, now: Date) {
  const progress = progressLine(io);
  const gitlab = gitlabFrom(io);
  const report = await enforce({
    gitlab, policy, now, signal: io.signal,
    onProgress: (p) => progress.update(() => enforceProgressText(p)),
  });
  progress.done();
  const { matched, complete } = report.summary;
  if (!complete || matched === null) {
    io.stderr.write(`warden policy check: the examination did not finish, so no rule can be said to match nothing:\n${report.warnings.map((w) => `  ${escapeControls(w)}`).join("\n")}\n`);
    return undefined;
  }
  // The job names each rule that matched nothing (and each override naming no group) with its place first; its other warnings are notes here.
  const isRule = (w: string) => /^(?:allow|exempt|gitlab\.scope\.overrides)\[\d+\] \(/.test(w);
  const notices = await noticesProjectWarning(gitlab, policy, io.signal);
  return { rules: perRule(policy, matched), warnings: [...report.warnings.filter(isRule), ...(notices ? [notices] : [])], notes: report.warnings.filter((w) => !isRule(w)) };
}

function perRule(policy: Policy, matched: RuleCounts): { rule: string; shares: number }[] {
  return (["allow", "exempt"] as RuleList[]).flatMap((list) => matched[list].map((shares, index) => ({ rule: ruleText(policy, { list, index }), shares })));
}

function textOf({ policy, warnings, notes, rules }: { policy: string; warnings: string[]; notes: string[]; rules: { rule: string; shares: number }[] }): string {
  // Matched, not allowed: a rule matches a share it covers even where another rule (or an exemption) decides it.
  const lines = rules.map(({ rule, shares }) => `${rule}: ${count(shares, "share")} matched`);
  lines.push(...notes.map((n) => `note: ${n}`), ...warnings.map((w) => `warning: ${w}`));
  lines.push(`${policy}: ${warnings.length ? count(warnings.length, "warning") : "no problems found"}`);
  return lines.map((line) => escapeControls(line)).join("\n");
}
