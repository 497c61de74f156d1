/** `warden <command>`: argument parsing, help, and turning any failure into exit code 1 with a clear message. */
import { parseArgs } from "node:util";
import { escapeControls } from "../../lib/jobs/render.ts";
import { PolicyError } from "../../lib/policy/index.ts";
import type { CliIO, Command } from "./command.ts";
import { enforceCommand } from "./enforce.ts";
import { pipelineCommand } from "./pipeline.ts";
import { restoreCommand } from "./restore.ts";
import { workflowsCommand } from "./workflows.ts";
import { notice, redactedIO, requestTimeoutFrom, UsageError } from "./io.ts";

const COMMANDS: Command[] = [enforceCommand, pipelineCommand, restoreCommand, workflowsCommand];

const COMMON = {
  policy: { type: "string" },
  json: { type: "boolean" },
  debug: { type: "boolean" },
  "request-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE = `Usage: warden <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join("\n")}

Every command also takes --request-timeout SECONDS (default: $WARDEN_REQUEST_TIMEOUT, else 60), the
deadline of each attempt of a request to GitLab or n8n.

Run 'warden <command> --help' for a command's options. Dry run is the default everywhere.`;

export async function main(argv: string[], processIO: CliIO): Promise<number> {
  // First of all: from here on, nothing the CLI writes can carry a credential from its environment.
  const io = redactedIO(processIO);
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`warden: unknown command ${escapeControls(JSON.stringify(name))}\n\n${USAGE}\n`);
    return 1;
  }
  let args;
  try {
    args = parseArgs({ args: rest, options: { ...COMMON, ...command.options }, allowPositionals: command.positionals ?? false, strict: true });
  } catch (err) {
    io.stderr.write(`warden ${name}: ${escapeControls((err as Error).message)}\n\n${command.usage}\n`);
    return 1;
  }
  if (args.values.help) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  io.signal?.addEventListener("abort", () => notice(io, `warden ${name}: ${stopping(io.signal!.reason)}`), { once: true });
  try {
    return await command.run(args, { ...io, requestTimeoutMs: requestTimeoutFrom(args, io.env) });
  } catch (err) {
    io.stderr.write(`warden ${name}: ${errorLines(err as Error, args.values.debug === true)}\n`);
    return 1;
  }
}

function stopping(reason: unknown): string {
  return `${reason instanceof Error ? reason.message : String(reason)}: starting no new work and cancelling requests in flight; the report follows (signal again to exit at once)`;
}

/**
 * An error for stderr, escaped: a server's message could carry ESC or CR. Only Warden's own
 * multi-line messages (usage, one policy problem per line) and stacks keep their line breaks.
 */
function errorLines(error: Error, debug: boolean): string {
  const ours = debug || error instanceof UsageError || error instanceof PolicyError;
  return escapeControls(debug ? (error.stack ?? error.message) : error.message, { keepNewlines: ours });
}
