/** The deployment's settings, from the function's environment (set by sst.config.ts). */

/** A setting missing or wrong: another attempt would meet it again (lib/http's isTerminal). */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly terminal = true;
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

/**
 * The kind of event a worker takes (sst.config.ts: the Worker a chat command's, the EventsWorker a
 * subject's), or undefined where it is unset (a worker run outside a deployment takes both). Any other
 * value is a deployment gone wrong: refused, naming it, before the worker runs anything.
 */
export function workerTakes(): "chat" | "subject" | undefined {
  const value = process.env["WARDEN_WORKER_TAKES"];
  if (value === undefined || value === "chat" || value === "subject") return value;
  throw new ConfigError(`WARDEN_WORKER_TAKES must be "chat" or "subject", not "${value}": deploy again with sst.config.ts, which sets it`);
}

/** The setting that made the stage report-only, for a refusal: the value, or that it is unset. */
export function reportOnlySetting(): string {
  const value = process.env["WARDEN_REPORT_ONLY"];
  return value === undefined ? "WARDEN_REPORT_ONLY unset" : `WARDEN_REPORT_ONLY=${value}`;
}
