/** A command's process: the environment read, reports printed, text redacted (command.ts says what it is). */
import { DEFAULT_POLICY_FILE, loadPolicyFile } from "../../lib/config/policy-file.ts";
import { checkCredential, checkServiceUrl, GITLAB, N8N } from "../../lib/config/service-config.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import type { WaitEvent } from "../../lib/http/types.ts";
import { exitCode, type AuditSink } from "../../lib/jobs/index.ts";
import { escapeControls, jsonForTerminal, renderText } from "../../lib/jobs/render.ts";
import type { Report } from "../../lib/jobs/report.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import type { Policy } from "../../lib/policy/index.ts";
import { redactOutput, registerSecret } from "../../lib/redact/index.ts";
import type { CliIO, ParsedArgs, TextOut } from "./command.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

/** The services the CLI talks to; each names the variables of its address and credential (lib/config). */
const SERVICES = { gitlab: GITLAB, n8n: N8N } as const;

/**
 * The one output point: every text the CLI writes (report, errors, progress, audit lines) passes
 * lib/redact here. The credentials in the environment are registered first, before the policy or
 * anything else is read, so that even an error quoting a file or a server's answer is masked.
 */
export function redactedIO(io: CliIO): CliIO {
  for (const { credentialVariable } of Object.values(SERVICES)) registerSecret(io.env[credentialVariable]);
  const redacted = (out: TextOut): TextOut => ({ write: (text) => out.write(redactOutput(text)), isTTY: out.isTTY });
  return { ...io, stdout: redacted(io.stdout), stderr: redacted(io.stderr) };
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

/** --request-timeout SECONDS, else $WARDEN_REQUEST_TIMEOUT, in milliseconds; undefined when neither is set. */
export function requestTimeoutFrom({ values }: ParsedArgs, env: NodeJS.ProcessEnv): number | undefined {
  const [name, raw] = values["request-timeout"] !== undefined ? ["--request-timeout", values["request-timeout"]] : ["WARDEN_REQUEST_TIMEOUT", env["WARDEN_REQUEST_TIMEOUT"]];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${name} takes a positive number of seconds, got ${JSON.stringify(raw)}`);
  return seconds * 1000;
}

/** --policy, else $WARDEN_POLICY, else ./warden.yaml. */
export function policyPath({ values }: ParsedArgs, io: CliIO): string {
  return String(values["policy"] ?? io.env["WARDEN_POLICY"] ?? DEFAULT_POLICY_FILE);
}

export function policyFrom(args: ParsedArgs, io: CliIO): Promise<Policy> {
  return loadPolicyFile(policyPath(args, io));
}

/** A service's address and credential, checked (naming the variable) before any request. */
function serviceFrom(io: CliIO, service: keyof typeof SERVICES): { url: string; credential: string } {
  const kind = SERVICES[service];
  return {
    url: checkServiceUrl(kind, { name: kind.urlVariable, value: requireEnv(io, kind.urlVariable) }),
    credential: checkCredential({ name: kind.credentialVariable, value: requireEnv(io, kind.credentialVariable) }),
  };
}

/** What every client gets from the command line: the per-attempt deadline, and waits shown as they start. */
function httpOptions(io: CliIO): { requestTimeoutMs?: number; onWait: (e: WaitEvent) => void } {
  return { ...(io.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: io.requestTimeoutMs }), onWait: (e) => notice(io, e.message) };
}

export function gitlabFrom(io: CliIO): GitLabClient {
  const { url, credential } = serviceFrom(io, "gitlab");
  return new GitLabClient({ url, token: credential, ...httpOptions(io) });
}

export function n8nFrom(io: CliIO): N8nClient {
  const { url, credential } = serviceFrom(io, "n8n");
  return new N8nClient({ url, apiKey: credential, ...httpOptions(io) });
}

/** Prints the report (JSON exactly as the job returned it, or the text table) and returns the exit code. */
export function printReport(io: CliIO, report: Report<{ status: string }, object>, json: boolean): number {
  const color = Boolean(io.stdout.isTTY) && !io.env["NO_COLOR"];
  io.stdout.write(`${json ? jsonForTerminal(report, 2) : renderText(report, { color })}\n`);
  return exitCode(report);
}

/** Audit lines go to stderr as JSON, one per change, so stdout stays the report. */
export function stderrAudit(io: CliIO): AuditSink {
  return { info: (message, fields) => io.stderr.write(`${jsonForTerminal({ level: "INFO", message, ...fields, timestamp: new Date().toISOString() })}\n`) };
}

/** A line on stderr for a person (a wait, an interruption), clearing a live progress line first. */
export function notice(io: CliIO, text: string): void {
  io.stderr.write(`${io.stderr.isTTY ? "\r\x1b[K" : ""}${escapeControls(text)}\n`);
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
      io.stderr.write(tty ? `\r\x1b[K${escapeControls(text)}` : `${escapeControls(text)}\n`);
    },
    done() {
      if (shown) io.stderr.write("\r\x1b[K");
    },
  };
}
