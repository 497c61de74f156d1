import { existsSync } from "node:fs";
import { loadPolicyFile } from "../../lib/config/policy-file.ts";
import { trustedLocation } from "../../lib/config/policy-trust.ts";
import { applyPlan, checkPlanPolicy, PlanFileError, readPlanFile, type GivenPolicy, type TrustLocation } from "../../lib/jobs/index.ts";
import { escapeControls } from "../../lib/jobs/render/index.ts";
import { type CliIO, type Command, COMMON_OPTIONS_HELP, FORMAT_HELP } from "./command.ts";
import { auditTrail, gitlabFrom, positiveInt, printReport, readWholeFile, requireEnv, UsageError } from "./io.ts";
import { planKey } from "./plan-out.ts";
import { policyChoice, POLICY_SETTING_NAMES } from "./policy-source.ts";

const USAGE = `Usage: warden apply PLAN [--apply] [--policy FILE | --policy-project PROJECT ...] [--max-plan-age AGE] [--audit-log FILE] [--concurrency N] [--format text|markdown|json] [--debug]

Applies a plan saved by 'warden enforce --out PLAN': removes only the shares it lists, judged by the
policy it records, once that is checked to be the policy given here (a plan file can be edited, and
its checksum recomputed): a policy file must have the same text; a policy in a GitLab repository
must be the same project, path and ref, the file at the plan's commit must be the plan's text, and
that commit must be on the ref. With no policy given and no ./warden.yaml the plan is refused, unless
WARDEN_PLAN_KEY verifies its signature. Each project and sharing group is read again first, and a share
is removed only if it is still there with the same access level, expiry and custom role, and still
stray under the plan's policy; anything else is skipped with the reason (already gone, level raised
or lowered, expiry changed, now allowed or exempt). Nothing the plan does not list is removed.
Dry run by default, as every command: without --apply it makes the same reads (GETs only) and
reports what it would remove. The plan is refused before any request when it is not a Warden plan,
was edited after it was written, was made for another GitLab than GITLAB_URL, is older than
--max-plan-age, or (WARDEN_PLAN_KEY set) is not signed with that key. The guard is the plan's policy's gitlab.guard.maxRemovals, over the plan's count.

Options:
  --apply          remove the planned shares that are still as planned
  --max-plan-age AGE
                   refuse a plan older than AGE, in minutes, hours or days: 90m, 24h, 2d
                   (default 24h)
  --concurrency N  reads and removals in flight at once (default 16)
  --audit-log FILE append one JSON line per change to FILE as it happens (for warden restore)
${FORMAT_HELP} (enforce's shape, with job "apply")
  --policy FILE, --policy-project PROJECT, --policy-path PATH, --policy-ref REF
                   the policy the plan must have been made with, as enforce takes it
                   (default: $WARDEN_POLICY or $WARDEN_POLICY_PROJECT..., else ./warden.yaml)
${COMMON_OPTIONS_HELP}

Environment: GITLAB_URL (the instance the plan was made for) and GITLAB_TOKEN, as for enforce;
WARDEN_PLAN_KEY (at least 32 characters): set when planning, the plan is signed (HMAC-SHA256); set
when applying, a plan without a signature that verifies is refused.

SIGINT, SIGTERM and SIGHUP stop the run as they stop enforce: no new removals, every audit line
written, the report printed, exit 1.

Exit codes: 0 all applied (or nothing left to remove), 1 error, 2 dry run found shares to remove,
3 guard tripped (nothing changed).`;

export const applyCommand: Command = {
  name: "apply",
  summary: "remove the shares a saved plan (enforce --out) lists, if still as planned (dry run unless --apply)",
  usage: USAGE,
  options: { apply: { type: "boolean" }, "max-plan-age": { type: "string" }, "audit-log": { type: "string" }, concurrency: { type: "string" } },
  positionals: true,
  files: ({ positionals }) => [{ name: "the plan (PLAN)", path: positionals[0] }],
  async run(args, io: CliIO) {
    const { values, positionals } = args;
    if (positionals.length !== 1) throw new UsageError(`one PLAN file is required (written by warden enforce --out PLAN)\n\n${USAGE}`);
    const file = positionals[0]!;
    const key = planKey(io);
    const maxAgeMs = planAge(values["max-plan-age"]);
    const concurrency = positiveInt(args, "concurrency");
    // A plan that size lists some 150,000 removals, more than any guard lets one apply: refused before it is parsed.
    const text = await readWholeFile(file, "apply", "plan again with a narrower --target, or a policy that removes less");
    const given = await givenPolicy(args, io);
    const gitlab = gitlabFrom(io, { inFlight: concurrency });
    // A refusal of the plan is one line of Warden's, quoting the plan file (which whoever can edit the
    // artifact writes) and GitLab: escaped whole, as a UsageError's newlines are kept.
    const refused = (err: unknown) => (err instanceof PlanFileError ? new UsageError(escapeControls(err.message)) : err);
    const read = (() => {
      try {
        return readPlanFile(text, file, { gitlabUrl: requireEnv(io, "GITLAB_URL"), maxAgeMs, now: new Date(), ...(key ? { key } : {}) });
      } catch (err) {
        throw refused(err);
      }
    })();
    // Before anything else is read: the plan's policy is the one given here (lib/jobs/apply/plan-policy.ts).
    const trust: TrustLocation = (at, signal) => trustedLocation(gitlab, at, POLICY_SETTING_NAMES, signal);
    // Judged and reported by the policy checked, never by where the plan says its policy came from.
    const { policy, note } = await checkPlanPolicy(gitlab, read, given, { file, signed: key !== undefined, trust, signal: io.signal }).catch((err) => {
      throw refused(err);
    });
    const trail = auditTrail(io, args);
    const report = await applyPlan({ gitlab, plan: read.plan, policy, signed: key !== undefined, apply: values["apply"] === true, concurrency, signal: trail.signal, audit: trail.sink }).finally(() => trail.close());
    if (note) report.warnings.unshift(note);
    return trail.exitCode(printReport(io, report, args));
  },
};

/** The policy to compare the plan's with, as enforce takes it; none when nothing names one and there is no ./warden.yaml. */
async function givenPolicy(args: Parameters<Command["run"]>[0], io: CliIO): Promise<GivenPolicy> {
  const choice = policyChoice(args, io.env);
  if (choice.kind === "gitlab") return { kind: "gitlab", ...choice.at };
  const named = args.values["policy"] !== undefined || Boolean(io.env["WARDEN_POLICY"]);
  if (!named && !existsSync(choice.path)) return { kind: "none", looked: `./${choice.path}` };
  return { kind: "file", policy: await loadPolicyFile(choice.path) };
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --max-plan-age: a whole number of minutes, hours or days (90m, 24h, 2d); 24 hours when not given. */
function planAge(raw: unknown): number {
  if (raw === undefined) return UNITS["h"]! * 24;
  const match = typeof raw === "string" ? /^(\d+)([mhd])$/.exec(raw) : null;
  const n = Number(match?.[1]);
  if (!match || n < 1) throw new UsageError(`--max-plan-age takes a positive whole number of minutes, hours or days (90m, 24h, 2d), got ${JSON.stringify(raw)}`);
  return n * UNITS[match[2]!]!;
}
