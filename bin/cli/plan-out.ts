/** `warden enforce --out FILE`: the dry run's plan saved for review and `warden apply` (lib/jobs/shares/plan-file.ts). */
import { MIN_PLAN_KEY_LENGTH, planFile, writePlanFile, type EnforceReport, count } from "../../lib/jobs/index.ts";
import { unmatchedRules, type Policy } from "../../lib/policy/index.ts";
import type { CliIO, ParsedArgs } from "./command.ts";
import { fileToWrite } from "./file-to-write.ts";
import { notice, requireEnv, UsageError } from "./io.ts";
import { packageVersion } from "./version.ts";

/** --out FILE, checked before any request: a dry run only, a file that can be written. */
export function planOutFrom({ values }: ParsedArgs, io: CliIO): string | undefined {
  if (values["out"] === undefined) return undefined;
  planKey(io);
  const out = String(values["out"]);
  if (values["apply"] === true) throw new UsageError(`--out saves a dry run's plan for review, and --apply removes now: drop --apply, review ${out}, then run: warden apply ${out} --apply`);
  fileToWrite("--out", out, "plan.json");
  return out;
}

/** WARDEN_PLAN_KEY, checked before any request: plans are signed with it, and apply refuses one it does not verify. */
export function planKey(io: CliIO): string | undefined {
  const key = io.env["WARDEN_PLAN_KEY"];
  if (key === undefined) return undefined;
  // Set but empty (a CI variable not exposed to the job) is a mistake, never "no key": it would apply unsigned plans.
  if (key.trim() === "") throw new UsageError("WARDEN_PLAN_KEY is set but empty: give the key (the CI variable may not be exposed to this job), or unset it to work without signed plans");
  if (key.length < MIN_PLAN_KEY_LENGTH) throw new UsageError(`WARDEN_PLAN_KEY is too short for an HMAC-SHA256 key (at least ${MIN_PLAN_KEY_LENGTH} characters): generate one with: openssl rand -hex 32`);
  return key;
}

/**
 * Writes the plan of a complete examination. A stopped one writes none, nor one that left parts of the
 * scope unexamined: a plan that lists only what was examined would be applied as if it were the whole review.
 * A targeted run's plan records no rule as matching nothing, as its own guard judges none so
 * (phases/guard.ts): a rule may match elsewhere in the scope.
 */
export function savePlan(io: CliIO, out: string, report: EnforceReport, policy: Policy, targeted: boolean): void {
  if (!report.summary.complete) {
    const why = report.summary.unexamined ? "parts of the scope could not be examined (see the warnings)" : "the examination did not finish";
    notice(io, `warden enforce: no plan written to ${out}: ${why}, and a partial plan would read as the whole one; run again`);
    return;
  }
  const createdAt = new Date();
  const unmatched = report.summary.matched && !targeted ? unmatchedRules(policy, report.summary.matched, createdAt) : [];
  const plan = planFile({
    // Removals only: a stray whose notice stands (onStray notify) or that is only reported is no removal.
    removals: report.actions.filter((a) => a.status === "planned"),
    policy,
    gitlabUrl: requireEnv(io, "GITLAB_URL"),
    createdAt,
    wardenVersion: packageVersion(),
    unmatchedRules: unmatched.map((r) => `${r.list}[${r.index}]`),
    key: planKey(io),
  });
  writePlanFile(out, plan);
  notice(io, `plan written to ${out}: ${count(plan.removals.length, "removal")}; review it, then apply it with: warden apply ${out} --apply`);
}
