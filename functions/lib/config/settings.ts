/** The deployment's settings, from the function's environment (set by sst.config.ts). */
import { resolve } from "node:path";
import { DEFAULT_POLICY_FILE, EXAMPLE_POLICY, loadPolicyFile } from "../../../lib/config/policy-file.ts";
import type { Policy } from "../../../lib/policy/index.ts";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new ConfigError(`${name} is not set`);
  return value;
}

/**
 * A report-only stage never applies a change: schedules run dry, and asking to apply is refused.
 * Fails closed: only the exact string "false" allows applying. sst.config.ts always sets "true" or
 * "false", so anything else (unset, "TRUE", "1", a typo made in the console) is a deployment gone
 * wrong, and the safe reading of that is report-only, not a schedule that applies.
 */
export function isReportOnly(): boolean {
  return process.env["WARDEN_REPORT_ONLY"] !== "false";
}

/** The setting that made the stage report-only, for a refusal: the value, or that it is unset. */
export function reportOnlySetting(): string {
  const value = process.env["WARDEN_REPORT_ONLY"];
  return value === undefined ? "WARDEN_REPORT_ONLY unset" : `WARDEN_REPORT_ONLY=${value}`;
}

let policy: Promise<Policy> | undefined;

/** How a deployment names its policy, for the error when the bundle has none where the function looks. */
const POLICY_NAMING =
  "sst deploy bundles the file WARDEN_POLICY_FILE names (default warden.yaml next to sst.config.ts) as warden.yaml, and the function's " +
  `WARDEN_POLICY names another in the bundle: deploy again with one (start from ${EXAMPLE_POLICY})`;

/**
 * The policy, read once per container. WARDEN_POLICY is relative to the bundle root (where
 * sst.config.ts copies the file, next to the handlers); the default is warden.yaml there.
 */
export function loadPolicy(): Promise<Policy> {
  if (!policy) {
    const path = resolve(process.env["LAMBDA_TASK_ROOT"] ?? process.cwd(), process.env["WARDEN_POLICY"] ?? DEFAULT_POLICY_FILE);
    const loading = loadPolicyFile(path, POLICY_NAMING);
    // A failed read is not kept: the next invocation tries again (and reports the problem again).
    loading.catch(() => {
      if (policy === loading) policy = undefined;
    });
    policy = loading;
  }
  return policy;
}
