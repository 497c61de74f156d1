/** A command's process: the environment read, reports printed, text redacted (command.ts says what it is). */
import { closeSync, constants } from "node:fs";
import { open } from "node:fs/promises";
import { issuedAwsCredentials } from "../../lib/config/aws-credentials.ts";
import { DEFAULT_POLICY_FILE, loadPolicyFile, notUtf8 } from "../../lib/config/policy-file.ts";
import { loadGitLabPolicy } from "../../lib/config/policy-source.ts";
import { checkCredential, checkServiceUrl, GITLAB, N8N } from "../../lib/config/service-config.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { PIPELINE_TOKEN_VARIABLE } from "../../lib/gitlab/settings.ts";
import type { WaitEvent } from "../../lib/http/types.ts";
import { DEFAULT_CONNECTIONS, type ProxySettings, type TransportOptions } from "../../lib/http/index.ts";
import { exitCode, type AuditSink, count, writeWhole } from "../../lib/jobs/index.ts";
import { escapeControls, jsonForTerminal, renderMarkdown, renderText } from "../../lib/jobs/render/index.ts";
import type { Report } from "../../lib/jobs/report/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import type { Policy } from "../../lib/policy/index.ts";
import { redactOutput, registerSecret } from "../../lib/redact/index.ts";
import { openAuditLog } from "./audit-log-file.ts";
import { REPORT_FORMATS, type CliIO, type ParsedArgs, type ReportFormat, type TextOut, UsageError } from "./command.ts";
import { policyChoice, POLICY_SETTING_NAMES } from "./policy-source.ts";

export { UsageError };

/** The services the CLI talks to; each names the variables of its address and credential (lib/config). */
const SERVICES = { gitlab: GITLAB, n8n: N8N } as const;

/**
 * stderr as one stream of lines: a live line (a progress line redrawn with "\r") is cleared on a
 * terminal, or ended off one, before any other text is written, so no line is glued to it.
 */
function separateLines(out: TextOut): TextOut {
  let live = false;
  return {
    isTTY: out.isTTY,
    write(text) {
      const prefix = live && !text.startsWith("\r") ? (out.isTTY ? "\r\x1b[K" : "\n") : "";
      live = text.slice(text.lastIndexOf("\n") + 1).replaceAll("\r\x1b[K", "") !== "";
      return out.write(prefix + text);
    },
  };
}

/**
 * The one output point: every text the CLI writes (report, errors, progress, audit lines) passes
 * lib/redact here. The credentials in the environment are registered first, before the policy or
 * anything else is read, so that even an error quoting a file or a server's answer is masked. Not
 * WARDEN_PLAN_KEY: Warden never sends or writes it, and a key a person typed, registered, would make
 * every name Warden quotes a test of a guess of it (a plan whose policy holds it is not written: plan-file.ts).
 */
export function redactedIO(io: CliIO): CliIO {
  for (const { credentialVariable } of Object.values(SERVICES)) registerSecret(io.env[credentialVariable]);
  registerSecret(io.env[PIPELINE_TOKEN_VARIABLE]);
  // The AWS credentials `restore s3://…` and `latest` sign with: the session token goes out in a header an endpoint may quote back.
  for (const credential of issuedAwsCredentials(io.env)) registerSecret(credential);
  // A terminal that says it takes no escape sequences (TERM=dumb: Emacs' shell, some IDE consoles and CI ptys) is
  // written to as a file is, no colour and no redrawn line, as Node's own hasColors() and git take it.
  const terminal = io.env["TERM"] !== "dumb";
  const redacted = (out: TextOut): TextOut => ({ write: (text) => out.write(redactOutput(text)), isTTY: out.isTTY && terminal, get columns() { return out.columns; } });
  return { ...io, stdout: redacted(io.stdout), stderr: separateLines(redacted(io.stderr)) };
}

export function requireEnv(io: CliIO, name: string): string {
  const value = io.env[name];
  if (value === undefined) throw new UsageError(`${name} is not set`);
  if (value === "") throw new UsageError(`${name} is set but empty`);
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

/**
 * The longest per-attempt deadline taken, in seconds: one day. The deadline is a timer, and Node's
 * timers hold at most 2^31-1 ms (about 24.8 days), replacing a longer delay with 1 ms: every attempt
 * would time out at once. No answer is worth waiting a day for, so a larger value is a mistake (most
 * likely taken for the run's deadline) to name, not a wish to honour.
 */
const MAX_REQUEST_TIMEOUT_SECONDS = 86_400;

/** --request-timeout SECONDS, else $WARDEN_REQUEST_TIMEOUT, in milliseconds; undefined when neither is set. */
export function requestTimeoutFrom({ values }: ParsedArgs, env: NodeJS.ProcessEnv): number | undefined {
  const [name, raw] = values["request-timeout"] !== undefined ? ["--request-timeout", values["request-timeout"]] : ["WARDEN_REQUEST_TIMEOUT", env["WARDEN_REQUEST_TIMEOUT"]];
  if (raw === undefined) return undefined;
  const seconds = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${name} takes a positive number of seconds, got ${JSON.stringify(raw)}`);
  if (seconds > MAX_REQUEST_TIMEOUT_SECONDS) {
    throw new UsageError(`${name} takes at most ${MAX_REQUEST_TIMEOUT_SECONDS} seconds (one day): it is the deadline of each request attempt, not of the run; got ${JSON.stringify(raw)}`);
  }
  return seconds * 1000;
}

/** --allow-http, else $WARDEN_ALLOW_HTTP: 1 allows, 0 or unset does not, anything else is a mistake to name. */
export function allowHttpFrom({ values }: ParsedArgs, env: NodeJS.ProcessEnv): boolean {
  if (values["allow-http"] === true) return true;
  const raw = env["WARDEN_ALLOW_HTTP"];
  if (raw === undefined || raw === "" || raw === "0") return false;
  if (raw === "1") return true;
  throw new UsageError(`WARDEN_ALLOW_HTTP takes 1 (allow plain http:// to another host) or 0, got ${JSON.stringify(raw)}`);
}

/** How the CLI lets plain http:// to another host, for the error that refuses it. */
const ALLOW_HTTP_HINT = "pass --allow-http (or set WARDEN_ALLOW_HTTP=1)";

/** --policy, else $WARDEN_POLICY, else ./warden.yaml. */
export function policyPath({ values }: ParsedArgs, io: CliIO): string {
  return String(values["policy"] ?? io.env["WARDEN_POLICY"] ?? DEFAULT_POLICY_FILE);
}

/**
 * The policy file, or the GitLab repository file --policy-project (or WARDEN_POLICY_PROJECT) names.
 * `proposed`: the policy a comparison evaluates (--compare-policy-ref), never applied, is read at any
 * ref: a merge request's source branch is not protected by nature (the base it is compared with must be).
 */
export async function policyFrom(args: ParsedArgs, io: CliIO, opts: { proposed?: boolean } = {}): Promise<Policy> {
  const choice = policyChoice(args, io.env);
  if (choice.kind === "file") return loadPolicyFile(choice.path);
  const at = opts.proposed ? { ...choice.at, allowUnprotectedRef: true } : choice.at;
  return (await loadGitLabPolicy(gitlabFrom(io), at, { names: POLICY_SETTING_NAMES, signal: io.signal })).policy;
}

/** A service's address and credential (its usual variable unless told another), checked (naming the variable) before any request. */
function serviceFrom(io: CliIO, service: keyof typeof SERVICES, credentialVariable: string = SERVICES[service].credentialVariable): { url: string; credential: string } {
  const kind = SERVICES[service];
  return {
    url: checkServiceUrl(kind, { name: kind.urlVariable, value: requireEnv(io, kind.urlVariable) }, { allowed: io.allowHttp === true, howToAllow: ALLOW_HTTP_HINT }),
    credential: checkCredential({ name: credentialVariable, value: requireEnv(io, credentialVariable) }),
  };
}

/** What every client gets from the command line: the per-attempt deadline, waits shown as they start, the egress proxy and the connections `inFlight` needs. */
function httpOptions(io: CliIO, inFlight = 0): { requestTimeoutMs?: number; onWait: (e: WaitEvent) => void; transport?: TransportOptions } {
  const proxy = proxyFrom(io.env);
  const transport: TransportOptions = { ...(proxy && { proxy }), ...(inFlight > DEFAULT_CONNECTIONS && { connections: inFlight }) };
  return { ...(io.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: io.requestTimeoutMs }), onWait: (e) => notice(io, e.message), ...(Object.keys(transport).length && { transport }) };
}

/** An egress proxy as curl, git and npm take it from the environment (the lower-case name first), or none. */
function proxyFrom(env: CliIO["env"]): ProxySettings | undefined {
  const named = (name: string) => env[name.toLowerCase()] || env[name] || undefined;
  const address = (name: string) => {
    const value = named(name);
    return value === undefined ? undefined : proxyAddress(name, value);
  };
  const [httpsProxy, httpProxy, noProxy] = [address("HTTPS_PROXY"), address("HTTP_PROXY"), named("NO_PROXY")];
  if (!httpsProxy && !httpProxy) return undefined;
  return { ...(httpsProxy && { httpsProxy }), ...(httpProxy && { httpProxy }), ...(noProxy && { noProxy }) };
}

/**
 * A proxy's address as undici takes it: `http://` where none is written (`proxy.corp:3128`, as curl reads
 * it), its user name and password percent-encoded once (a raw `%` in a password is not an escape). Any
 * other is refused naming the variable, never its value: it may hold a password.
 */
function proxyAddress(name: string, value: string): string {
  const written = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  const url = URL.canParse(written) ? new URL(written) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) {
    throw new UsageError(`${name} is not a proxy address Warden can use (its value is not shown: it may hold a password): give it as http://host:port, or http://user:password@host:port`);
  }
  const once = (part: string) => {
    try {
      return encodeURIComponent(decodeURIComponent(part));
    } catch {
      return encodeURIComponent(part);
    }
  };
  [url.username, url.password] = [once(url.username), once(url.password)];
  return url.href;
}

/**
 * The GitLab client of `credentialVariable`'s token (GITLAB_TOKEN's unless told another), with the command
 * line's settings, its proxy among them, and connections for `inFlight` requests at once (a job's
 * concurrency flags: undici queues any request above its connections, so `--concurrency 32` sent 16 at a time).
 */
export function gitlabFrom(io: CliIO, { credentialVariable, inFlight }: { credentialVariable?: string; inFlight?: number } = {}): GitLabClient {
  const { url, credential } = serviceFrom(io, "gitlab", credentialVariable);
  const settingNames = credentialVariable === undefined ? {} : { settingNames: { url: GITLAB.urlVariable, credential: credentialVariable } };
  return new GitLabClient({ url, token: credential, ...settingNames, ...httpOptions(io, inFlight) });
}

/**
 * The client a pipeline is checked and started with: WARDEN_PIPELINE_TOKEN's when it is set (present
 * but empty is a mistake named, never a fall-back to the stronger GITLAB_TOKEN), else GITLAB_TOKEN's.
 */
export function pipelineGitlabFrom(io: CliIO): GitLabClient {
  return gitlabFrom(io, io.env[PIPELINE_TOKEN_VARIABLE] === undefined ? {} : { credentialVariable: PIPELINE_TOKEN_VARIABLE });
}

export function n8nFrom(io: CliIO): N8nClient {
  const { url, credential } = serviceFrom(io, "n8n");
  return new N8nClient({ url, apiKey: credential, ...httpOptions(io) });
}

/** --format FORMAT (one of `formats`), or --json, its synonym for json; checked by main.ts before a command runs. */
export function reportFormat({ values }: ParsedArgs, formats: readonly ReportFormat[] = REPORT_FORMATS): ReportFormat {
  const format = values["format"];
  if (format === undefined && values["json"] === true && !formats.includes("json")) throw new UsageError(`--json is --format json: --format takes ${formats.join(", ")} here`);
  if (format === undefined) return values["json"] === true ? "json" : "text";
  if (!formats.includes(format as ReportFormat)) throw new UsageError(`--format takes ${formats.join(", ")}; got ${JSON.stringify(format)}`);
  if (values["json"] === true && format !== "json") throw new UsageError(`--json is --format json: it cannot go with --format ${String(format)}`);
  return format as ReportFormat;
}

/**
 * Prints the report as --format says (JSON exactly as the job returned it, Markdown, or the text
 * table wrapped to a terminal's width) and returns the exit code.
 */
export function printReport(io: CliIO, report: Report<{ status: string }, object>, args: ParsedArgs): number {
  const format = reportFormat(args);
  const color = Boolean(io.stdout.isTTY) && !io.env["NO_COLOR"];
  const width = io.stdout.isTTY ? io.stdout.columns : undefined;
  const text = format === "json" ? jsonForTerminal(report, 2) : format === "markdown" ? renderMarkdown(report) : renderText(report, { color, width });
  io.stdout.write(`${text}\n`);
  return exitCode(report);
}

/** The audit trail of a run: its sink, the signal the job runs under, and close() once the job has returned. */
export interface AuditTrail {
  sink: AuditSink;
  /** The CLI's own (a signal), ended too when --audit-log's file can no longer be written: no change is made that no line records. */
  signal: AbortSignal | undefined;
  close(): void;
  /** The run's exit code, 1 where it would be 0 once a line could not be written to --audit-log's file (the file lacks a change, even its last one). */
  exitCode(code: number): number;
}

/**
 * One JSON line per change, so stdout stays the report: appended to --audit-log FILE (written
 * synchronously, so a run killed right after a change leaves its line on disk) and, off a terminal,
 * to stderr; on a terminal, stderr shows a running count instead. The file is opened before any request.
 * A write that fails (a full disk) stops the run from starting changes, as a signal does, and from then
 * on every line goes to stderr, terminal or not: a change GitLab made is never left without its line.
 */
export function auditTrail(io: CliIO, { values }: ParsedArgs): AuditTrail {
  const path = values["audit-log"] === undefined ? undefined : String(values["audit-log"]);
  const fd = path === undefined ? undefined : openAuditLog(path);
  const tty = Boolean(io.stderr.isTTY);
  const unwritable = new AbortController();
  let changes = 0;
  const counted = () => `${count(changes, "change")}; audit lines ${path === undefined ? "not kept (--audit-log FILE keeps them)" : `in ${escapeControls(path)}`}`;
  const toFile = (line: string): boolean => {
    if (fd === undefined || unwritable.signal.aborted) return false;
    try {
      writeWhole(fd, redactOutput(line));
      return true;
    } catch (err) {
      const reason = `--audit-log ${path}: writing failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      notice(io, `warden: ${reason}: starting no new change; this change's audit line and any after it follow on stderr`);
      unwritable.abort(new Error(reason));
      return false;
    }
  };
  // Off a terminal, without --audit-log, an applying run's lines go to stderr alone: once it cannot be written
  // (`2>&1 | head` done reading, `2> lines.jsonl` on a full disk) each later change would have no line anywhere.
  const lost = io.stderrLost;
  if (lost && fd === undefined && !tty && values["apply"] === true) {
    const stop = () => {
      const err = lost.reason as NodeJS.ErrnoException;
      unwritable.abort(new Error(`standard error could not be written (${err?.code ?? err?.message}), and the audit lines go there alone: the lines of changes made since are lost; starting no new change (--audit-log FILE keeps them on disk)`));
    };
    if (lost.aborted) stop();
    else lost.addEventListener("abort", stop, { once: true });
  }
  return {
    signal: io.signal ? AbortSignal.any([io.signal, unwritable.signal]) : unwritable.signal,
    sink: {
      info(message, fields) {
        const line = `${jsonForTerminal({ level: "INFO", message, ...fields, timestamp: new Date().toISOString() })}\n`;
        const kept = toFile(line);
        changes++;
        io.stderr.write(tty && (kept || fd === undefined) ? `\r\x1b[K${counted()}` : line);
      },
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      if (tty && changes > 0) io.stderr.write(`\r\x1b[K${counted()}\n`);
    },
    exitCode: (code) => (code === 0 && unwritable.signal.aborted ? 1 : code),
  };
}

/** A line on stderr for a person (a wait, an interruption), clearing a live progress line first. */
export function notice(io: CliIO, text: string): void {
  io.stderr.write(`${io.stderr.isTTY ? "\r\x1b[K" : ""}${escapeControls(text)}\n`);
}

/**
 * Progress on stderr: a live line on a terminal, a line every 5 s otherwise. A job reports progress
 * after every answer, thousands of times a run: the text is made only when it is shown.
 */
export function progressLine(io: CliIO): { update(text: () => string): void; done(): void } {
  const tty = Boolean(io.stderr.isTTY);
  const every = tty ? 100 : 5_000;
  let last = Date.now();
  let shown = false;
  return {
    update(text) {
      if (Date.now() - last < every) return;
      last = Date.now();
      shown = tty;
      const line = escapeControls(text());
      io.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
    },
    done() {
      if (shown) io.stderr.write("\r\x1b[K");
    },
  };
}

/**
 * The most a file read whole (a restore input, a plan) may weigh: parsed, it must fit the CLI's heap of
 * 256 MB (lib/config/node-options.ts) with room to spare (a log of 96 MB was read, one of 125 MB was not);
 * the report of an enforce run's 100,000 removals, the most one makes, is about 40 MB.
 */
export const MAX_READ_WHOLE_MB = 64;

// O_NONBLOCK: opening a named pipe nothing writes to would wait for a writer, before any check; no effect on a file.
const READ_WHOLE = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * `file`'s text, or a UsageError naming the cause: it cannot be read, or it holds more than
 * MAX_READ_WHOLE_MB (`fix` says what to give instead). Read a megabyte at a time and stopped there: a
 * pipe or a device (`<(…)`, /dev/stdin) has no size to refuse it by, and would fill the heap. A pipe or a
 * device is read only where it is the user's own: a named pipe another account made where the plan was
 * saved (a shared directory) would hold the run for as long as its writer waits, and is refused at once.
 */
export async function readWholeFile(file: string, what: string, fix: string): Promise<string> {
  const limit = MAX_READ_WHOLE_MB * 1024 * 1024;
  const cannot = (err: NodeJS.ErrnoException): never => {
    throw new UsageError(`cannot read ${file}: ${err.code ?? err.message}`);
  };
  const tooMuch = (weighs: string) => new UsageError(`${file} ${weighs}, more than ${what} reads (${MAX_READ_WHOLE_MB} MB): ${fix}`);
  let handle = await open(file, READ_WHOLE).catch(cannot);
  try {
    const stats = await handle.stat().catch(cannot);
    if (stats.isDirectory()) throw new UsageError(`${file} is a directory: ${what} reads a saved file; give its path`);
    if (!stats.isFile()) {
      const uid = process.getuid?.();
      if (uid !== undefined && stats.uid !== uid) {
        throw new UsageError(`${file} is a pipe or a device of another account (uid ${stats.uid}), which could hold the run for as long as it waits to write: save the input to a file of your own and give its path`);
      }
      // The user's own stream: read as it comes, waiting for its writer.
      const stream = await open(file, "r").catch(cannot);
      await handle.close();
      handle = stream;
    }
    if (stats.size > limit) throw tooMuch(`is ${Math.round(stats.size / 1024 / 1024)} MB`);
    const chunks: Buffer[] = [];
    for (let total = 0; ; ) {
      const chunk = Buffer.alloc(1024 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length).catch(cannot);
      if (bytesRead === 0) return Buffer.concat(chunks).toString("utf8");
      const encoding = total === 0 ? notUtf8(chunk.subarray(0, bytesRead)) : undefined;
      if (encoding) throw new UsageError(`${file} ${encoding}`);
      if ((total += bytesRead) > limit) throw tooMuch(`holds more than ${MAX_READ_WHOLE_MB} MB`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}
