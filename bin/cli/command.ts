import type { ParseArgsConfig } from "node:util";

/** Where the CLI writes text: process.stdout and process.stderr, or a test's stream. */
export interface TextOut {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** A terminal's width: a text report wraps its lines to it. */
  readonly columns?: number;
}

/** What a command needs from its process (io.ts builds it from process); tests pass their own. */
export interface CliIO {
  stdout: TextOut;
  stderr: TextOut;
  env: NodeJS.ProcessEnv;
  /** Fires on Ctrl-C (or SIGTERM, SIGHUP): the job stops starting new work and reports where it stopped. */
  signal?: AbortSignal;
  /**
   * Fires once stderr can no longer be written (its reader gone, a full disk under `2> file`), the error its
   * reason: off a terminal it is where an applying run's audit lines go, and without --audit-log their only home.
   */
  stderrLost?: AbortSignal;
  /** Each request attempt's deadline (--request-timeout or WARDEN_REQUEST_TIMEOUT); lib/http's default when unset. */
  requestTimeoutMs?: number;
  /** Plain http:// to a host other than this machine (--allow-http or WARDEN_ALLOW_HTTP=1); refused unless set. */
  allowHttp?: boolean;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Options beyond the common --policy, --format, --json, --debug and --help. */
  options: NonNullable<ParseArgsConfig["options"]>;
  /** The --format values it prints (default all: text, markdown, json). */
  formats?: readonly ReportFormat[];
  positionals?: boolean;
  /**
   * The files it reads or writes besides the policy and --audit-log (a plan, --out, --state): main.ts tells
   * them apart from those before the command runs (distinct-files.ts), as it does the policy and --audit-log
   * of every command that takes --audit-log, so no command writes over what it reads.
   */
  files?(args: ParsedArgs, io: CliIO): NamedFile[];
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}

/** A file a command line names. */
export interface NamedFile {
  /** How the command line names it: "--out", "the plan (PLAN)". */
  name: string;
  path: string | undefined;
}

/** A command line Warden cannot read; main.ts prints its message as the fix, never a stack. */
export class UsageError extends Error {
  override name = "UsageError";
}

export const REPORT_FORMATS = ["text", "markdown", "json"] as const;
/** csv: only where a command says so (warden report shares). */
export type ReportFormat = (typeof REPORT_FORMATS)[number] | "csv";

/** The help lines of --format and --json, for the usage of each command that prints a report. */
export const FORMAT_HELP = `  --format FORMAT  text (default), markdown (for merge request comments and CI job summaries)
                   or json (the report's JSON Schema is docs/report.schema.json)
  --json           the same as --format json`;

/** The help lines of the options every command takes (main.ts's COMMON), for each command's usage. */
export const COMMON_OPTIONS_HELP = `  --policy-project ID
                   the policy from this GitLab project's repository instead of a file: its id
                   (recommended: pinned for good) or GROUP/PROJECT (default \$WARDEN_POLICY_PROJECT;
                   not with --policy)
  --policy-path PATH
                   its path there (default \$WARDEN_POLICY_PATH, else warden.yaml)
  --policy-ref REF
                   branch, tag or commit (default \$WARDEN_POLICY_REF, else the default branch);
                   a branch or tag must be protected
  --policy-allow-unprotected-ref
                   read it at a branch or tag that is not protected (default
                   \$WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1)
  --request-timeout SECONDS
                   deadline of each request attempt (default \$WARDEN_REQUEST_TIMEOUT, else 60)
  --allow-http     let GITLAB_URL or N8N_URL be plain http:// to another host, sending the token
                   unencrypted (default \$WARDEN_ALLOW_HTTP=1; this machine's addresses need neither)
  --debug          print stack traces of unexpected errors
  -h, --help       print this help`;
