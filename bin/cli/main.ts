/** `warden <command>`: argument parsing, help, and turning any failure into exit code 1 with a clear message. */
import { parseArgs } from "node:util";
import { PolicySourceError } from "../../lib/config/policy-source.ts";
import { ServiceConfigError } from "../../lib/config/service-config.ts";
import { escapeControls } from "../../lib/jobs/render/index.ts";
import { PolicyError } from "../../lib/policy/index.ts";
import { applyCommand } from "./apply.ts";
import type { CliIO, Command } from "./command.ts";
import { refuseSameFile } from "./distinct-files.ts";
import { enforceCommand } from "./enforce.ts";
import { exemptCommand } from "./exempt.ts";
import { pipelineCommand } from "./pipeline.ts";
import { policyCommand } from "./policy.ts";
import { reportCommand } from "./report.ts";
import { restoreCommand } from "./restore.ts";
import { watchCommand } from "./watch.ts";
import { workflowsCommand } from "./workflows.ts";
import { allowHttpFrom, notice, redactedIO, reportFormat, requestTimeoutFrom, UsageError } from "./io.ts";
import { closest } from "./suggest.ts";
import { packageVersion } from "./version.ts";

export const COMMANDS: Command[] = [enforceCommand, applyCommand, exemptCommand, pipelineCommand, policyCommand, reportCommand, restoreCommand, watchCommand, workflowsCommand];

/** The options every command takes besides its own (each command's usage lists them too). */
export const COMMON = {
  policy: { type: "string" },
  "policy-project": { type: "string" },
  "policy-path": { type: "string" },
  "policy-ref": { type: "string" },
  "policy-allow-unprotected-ref": { type: "boolean" },
  format: { type: "string" },
  json: { type: "boolean" },
  debug: { type: "boolean" },
  "request-timeout": { type: "string" },
  "allow-http": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE = `Usage: warden <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join("\n")}

Every command also takes --request-timeout SECONDS (default: $WARDEN_REQUEST_TIMEOUT, else 60), the
deadline of each attempt of a request to GitLab or n8n, and --allow-http (default: $WARDEN_ALLOW_HTTP=1),
which lets GITLAB_URL or N8N_URL be plain http:// to a host other than this machine.

Run 'warden <command> --help' (or 'warden help <command>') for a command's options, 'warden --version' for the version.
Dry run is the default everywhere: nothing changes without --apply.`;

export async function main(argv: string[], processIO: CliIO): Promise<number> {
  // First of all: from here on, nothing the CLI writes can carry a credential from its environment.
  const io = redactedIO(processIO);
  const [first, ...after] = argv;
  // `warden help enforce`, as `git help commit` and `npm help install`: that command's help.
  const [name, rest] = first === "help" && after[0] !== undefined && !after[0].startsWith("-") ? [after[0], ["--help"]] : [first, after];
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // As git and npm do: the help, and a failure, since no command ran (a script's empty $COMMAND must not pass).
  if (name === undefined) {
    io.stdout.write(`${USAGE}\n`);
    return 1;
  }
  if (name === "--version" || name === "-V") {
    io.stdout.write(`warden ${packageVersion()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const problem = name.startsWith("-")
      ? unknown("option", name, ["--help", "--version"], " (a command's options follow it: warden <command> [options])")
      : unknown("command", name, COMMANDS.map((c) => c.name));
    return usageError(io, "warden", problem, "warden --help");
  }
  const options = { ...COMMON, ...command.options };
  let args;
  try {
    args = parseArgs({ args: rest, options, allowPositionals: command.positionals ?? false, strict: true });
  } catch (err) {
    return usageError(io, `warden ${name}`, parseProblem(err as Error, rest, options, command), `warden ${name} --help`);
  }
  if (args.values.help) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    reportFormat(args, command.formats);
  } catch (err) {
    return usageError(io, `warden ${name}`, (err as Error).message, `warden ${name} --help`);
  }
  io.signal?.addEventListener("abort", () => notice(io, `warden ${name}: ${stopping(io.signal!.reason)}`), { once: true });
  try {
    // Before the command reads anything: none of its files is another, whichever command it is.
    if ("audit-log" in command.options || command.files) refuseSameFile(args, io, command.files?.(args, io) ?? []);
    return await command.run(args, { ...io, requestTimeoutMs: requestTimeoutFrom(args, io.env), allowHttp: allowHttpFrom(args, io.env) });
  } catch (err) {
    io.stderr.write(`warden ${name}: ${errorLines(err as Error, args.values.debug === true)}\n`);
    return 1;
  }
}

/** A command line Warden cannot read: what is wrong, and where to look; nothing has run. */
function usageError(io: CliIO, who: string, problem: string, help: string): number {
  io.stderr.write(`${who}: ${escapeControls(problem)}\nRun '${help}' for the usage.\n`);
  return 1;
}

/** `otherwise` is said when no known word is near enough to guess. */
function unknown(what: string, word: string, known: string[], otherwise = ""): string {
  const guess = closest(word, known);
  return `unknown ${what} ${quoted(word)}${guess === undefined ? otherwise : `: did you mean ${quoted(guess)}?`}`;
}

function quoted(word: string): string {
  return JSON.stringify(word);
}

/**
 * node:util's parse error in Warden's words. The word it stopped at is found again (a lenient
 * parse's tokens name it), to offer the nearest option instead of node's advice about `--`:
 * `--aply` is `--apply`, and so is `apply` where the command takes no arguments.
 */
function parseProblem(err: Error, args: string[], options: Command["options"], command: Command): string {
  const code = (err as NodeJS.ErrnoException).code;
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const names = Object.keys(options).map((o) => `--${o}`);
  const option = tokens.find((t) => t.kind === "option" && !Object.hasOwn(options, t.name));
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option?.kind === "option") {
    const asArgument = command.positionals ? ` (an argument that starts with - goes after --: warden ${command.name} … -- ${option.rawName})` : "";
    return unknown("option", option.rawName, names, asArgument);
  }
  const positional = tokens.find((t) => t.kind === "positional");
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && positional?.kind === "positional") {
    const guess = closest(`--${positional.value}`, names);
    return `unexpected argument ${quoted(positional.value)}${guess === undefined ? ` (${command.name} takes options only)` : `: did you mean ${quoted(guess)}?`}`;
  }
  // A value-taking option with none: at the end, or before a value that starts with - (`--concurrency -1`), which
  // the strict parse takes for an option of its own and the lenient one for the value.
  const bare = tokens.find((t) => t.kind === "option" && options[t.name]?.type === "string" && (t.value === undefined || (!t.inlineValue && t.value.startsWith("-"))));
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && bare?.kind === "option") {
    return `--${bare.name} needs a value${bare.value === undefined ? "" : `; one that starts with - is given as --${bare.name}=${bare.value}`}`;
  }
  return err.message;
}

function stopping(reason: unknown): string {
  return `${reason instanceof Error ? reason.message : String(reason)}: starting no new work and cancelling requests in flight; the report follows (signal again to exit at once)`;
}

/**
 * An error for stderr, escaped: a server's message could carry ESC, CR or a newline. Only Warden's own
 * multi-line messages (usage, one policy problem per line) and a stack's frames keep their line breaks.
 */
function errorLines(error: Error, debug: boolean): string {
  const ours = error instanceof UsageError || error instanceof PolicyError;
  // A mistake in the input (a flag, the policy, a setting, a policy GitLab will not give) is never a stack trace: its message is the fix.
  const stack = debug && !ours && !(error instanceof ServiceConfigError) && !(error instanceof PolicySourceError);
  if (!stack) return escapeControls(error.message, { keepNewlines: ours });
  // The stack starts with "Name: message", and the message may quote a server: that head is escaped
  // whole, and only the frames after it (Warden's code) keep their lines. A stack written before the
  // message changed does not start with it, so nothing of it can be told to be frames: one line.
  const head = String(error);
  const { stack: trace = "" } = error;
  if (!trace.startsWith(head)) return [head, trace].filter(Boolean).map((t) => escapeControls(t)).join("\n");
  return `${escapeControls(head)}${escapeControls(trace.slice(head.length), { keepNewlines: true })}`;
}
