/** What a command needs from its process; tests pass their own. */
import type { Writable } from "node:stream";
import { DEFAULT_POLICY_FILE, loadPolicyFile } from "../../lib/config/policy-file.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { exitCode, renderText, type AuditSink } from "../../lib/jobs/index.ts";
import type { Policy } from "../../lib/policy/index.ts";
import type { ParsedArgs } from "./command.ts";
import type { Report } from "../../lib/jobs/report.ts";

export interface CliIO {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Fires on Ctrl-C: the job stops starting new work and reports where it stopped. */
  signal?: AbortSignal;
}

export class UsageError extends Error {
  override name = "UsageError";
}

export function requireEnv(io: CliIO, name: string): string {
  const value = io.env[name];
  if (!value) throw new UsageError(`${name} is not set`);
  return value;
}

/** An optional --name N option that must be a whole number from 1 to 64. */
export function positiveInt({ values }: ParsedArgs, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--${name} takes a whole number from 1 to 64, got "${String(raw)}"`);
  return n;
}

/** --policy, else $WARDEN_POLICY, else ./warden.yaml. */
export function policyFrom({ values }: ParsedArgs, io: CliIO): Promise<Policy> {
  return loadPolicyFile(String(values["policy"] ?? io.env["WARDEN_POLICY"] ?? DEFAULT_POLICY_FILE));
}

export function gitlabFrom(io: CliIO): GitLabClient {
  return new GitLabClient({ url: requireEnv(io, "GITLAB_URL"), token: requireEnv(io, "GITLAB_TOKEN") });
}

/** Prints the report (JSON exactly as the job returned it, or the text table) and returns the exit code. */
export function printReport(io: CliIO, report: Report<{ status: string }, object>, json: boolean): number {
  const color = Boolean(io.stdout.isTTY) && !io.env["NO_COLOR"];
  io.stdout.write(`${json ? JSON.stringify(report, null, 2) : renderText(report, { color })}\n`);
  return exitCode(report);
}

/** Audit lines go to stderr as JSON, one per change, so stdout stays the report. */
export function stderrAudit(io: CliIO): AuditSink {
  return { info: (message, fields) => io.stderr.write(`${JSON.stringify({ level: "INFO", message, ...fields, timestamp: new Date().toISOString() })}\n`) };
}

/** Progress on stderr: a live line on a terminal, a line every 5 s otherwise. */
export function progressLine(io: CliIO): { update(text: string): void; done(): void } {
  const tty = Boolean(io.stderr.isTTY);
  const every = tty ? 100 : 5_000;
  let last = Date.now();
  let shown = false;
  return {
    update(text) {
      if (Date.now() - last < every) return;
      last = Date.now();
      shown = tty;
      io.stderr.write(tty ? `\r\x1b[K${text}` : `${text}\n`);
    },
    done() {
      if (shown) io.stderr.write("\r\x1b[K");
    },
  };
}
