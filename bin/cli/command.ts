import type { ParseArgsConfig } from "node:util";
import type { CliIO } from "./io.ts";

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Options beyond the common --policy, --json, --debug and --help. */
  options: NonNullable<ParseArgsConfig["options"]>;
  positionals?: boolean;
  run(args: ParsedArgs, io: CliIO): Promise<number>;
}
