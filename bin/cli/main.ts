/** `warden <command>`: argument parsing, help, and turning any failure into exit code 1 with a clear message. */
import { parseArgs } from "node:util";
import type { Command } from "./command.ts";
import { enforceCommand } from "./enforce.ts";
import { pipelineCommand } from "./pipeline.ts";
import { workflowsCommand } from "./workflows.ts";
import type { CliIO } from "./io.ts";

const COMMANDS: Command[] = [enforceCommand, pipelineCommand, workflowsCommand];

const COMMON = {
  policy: { type: "string" },
  json: { type: "boolean" },
  debug: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const USAGE = `Usage: warden <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join("\n")}

Run 'warden <command> --help' for a command's options. Dry run is the default everywhere.`;

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`warden: unknown command "${name}"\n\n${USAGE}\n`);
    return 1;
  }
  let args;
  try {
    args = parseArgs({ args: rest, options: { ...COMMON, ...command.options }, allowPositionals: command.positionals ?? false, strict: true });
  } catch (err) {
    io.stderr.write(`warden ${name}: ${(err as Error).message}\n\n${command.usage}\n`);
    return 1;
  }
  if (args.values.help) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (err) {
    const error = err as Error;
    io.stderr.write(`warden ${name}: ${args.values.debug ? error.stack : error.message}\n`);
    return 1;
  }
}
