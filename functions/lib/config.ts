/** The deployment's settings, from the function's environment (set by sst.config.ts). */
import { resolve } from "node:path";
import { DEFAULT_POLICY_FILE, loadPolicyFile } from "../../lib/config/policy-file.ts";
import type { Policy } from "../../lib/policy/index.ts";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new ConfigError(`${name} is not set`);
  return value;
}

/** A report-only stage never applies a change: schedules run dry, and asking to apply is refused. */
export function isReportOnly(): boolean {
  return process.env["WARDEN_REPORT_ONLY"] === "true";
}

let policy: Promise<Policy> | undefined;

/**
 * The policy, read once per container. WARDEN_POLICY is relative to the bundle root (where
 * sst.config.ts copies the file, next to the handlers); the default is warden.yaml there.
 */
export function loadPolicy(): Promise<Policy> {
  if (!policy) {
    const path = resolve(process.env["LAMBDA_TASK_ROOT"] ?? process.cwd(), process.env["WARDEN_POLICY"] ?? DEFAULT_POLICY_FILE);
    const loading = loadPolicyFile(path);
    // A failed read is not kept: the next invocation tries again (and reports the problem again).
    loading.catch(() => {
      if (policy === loading) policy = undefined;
    });
    policy = loading;
  }
  return policy;
}
