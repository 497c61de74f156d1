/** The benchmark's flags, read into plain data the row kinds and the Markdown writer take. */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { NODE_OPTIONS } from "../../lib/config/node-options.ts";
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../../lib/jobs/index.ts";
import { LIMITS, type Limits } from "./budgets.ts";

const TOOLS = ["warden", "gitbeaker"] as const;
export type Tool = (typeof TOOLS)[number];

export interface Settings {
  /** The arguments as given, recorded in the Markdown. */
  args: string[];
  sizes: number[];
  /** Projects in each row of the CLI as a user runs it (rows/cli.ts); empty leaves them out. */
  cli: number[];
  latencyMs: number;
  /** --concurrency as given ("" for the CLI's defaults), and what Warden runs with. */
  concurrencyFlag: string;
  concurrency: { list: number; removal: number };
  timeScale: number;
  timeoutS: number;
  nodeOptions: string;
  tools: Tool[];
  limits: Limits[];
  latencyRows: number[];
  latencyProjects: number;
  scaledLatencyMs: number;
  /** Projects in the durable and token-bucket rows; 0 leaves the row out. */
  durable: number;
  /** Projects in the opt-in large durable row (--durable-projects: 1,000,000 in issue 32); 0, the default, leaves it out. */
  durableProjects: number;
  durableInvocationS: number;
  bucket: number;
  /** Shares made in the watch row (0 leaves it out), and its poll interval. */
  watch: number;
  watchIntervalS: number;
  /** Stray shares in the stream row; 0 leaves it out. */
  stream: number;
  /** Projects in the notices row (rows/notices.ts); 0 leaves it out. */
  notices: number;
  json: boolean;
  /** The file to write the Markdown to; "" prints it. */
  markdown: string;
  help: boolean;
}

const OPTIONS = {
  sizes: { type: "string", default: "1000,10000,100000" },
  cli: { type: "string", default: "10000,100000" },
  latency: { type: "string", default: "20" },
  concurrency: { type: "string", default: "" },
  "time-scale": { type: "string", default: "10" },
  "timeout-s": { type: "string", default: "600" },
  "node-options": { type: "string", default: NODE_OPTIONS },
  tools: { type: "string", default: "warden,gitbeaker" },
  limits: { type: "string", default: "none,gitlab.com" },
  "latency-rows": { type: "string", default: "200,1000" },
  "latency-projects": { type: "string", default: "10000" },
  "scaled-latency": { type: "string", default: "50" },
  durable: { type: "string", default: "300000" },
  "durable-projects": { type: "string", default: "0" },
  "durable-invocation-s": { type: "string", default: "900" },
  bucket: { type: "string", default: "10000" },
  watch: { type: "string", default: "10" },
  "watch-interval-s": { type: "string", default: "5" },
  stream: { type: "string", default: "20" },
  notices: { type: "string", default: "10000" },
  json: { type: "boolean", default: false },
  markdown: { type: "string", default: "" },
  help: { type: "boolean", default: false },
} as const;

/** A flag the benchmark cannot take: its message names the flag and what it takes. */
export class BenchUsageError extends Error {}

/**
 * The flags read and checked: a value that is not what its flag takes is refused, naming both, before
 * anything runs (a mistyped number would otherwise run rows of NaN projects for minutes).
 */
export function parseSettings(args: string[]): Settings {
  let flags;
  try {
    ({ values: flags } = parseArgs({ args, options: OPTIONS }));
  } catch (err) {
    throw new BenchUsageError((err as Error).message);
  }
  const list = (text: string) => text.split(",").filter(Boolean);
  /** A whole number of `flag` from `least` up ("" counts as 0, which leaves a row out). */
  const whole = (flag: keyof typeof OPTIONS, text: string, least = 0): number => {
    const n = text === "" ? 0 : Number(text);
    if (!/^\d*$/.test(text) || n < least) throw new BenchUsageError(`--${flag} takes whole numbers from ${least}, not "${text}"`);
    return n;
  };
  const value = (flag: keyof typeof OPTIONS, least = 0) => whole(flag, flags[flag] as string, least);
  const wholes = (flag: keyof typeof OPTIONS, least = 1) => list(flags[flag] as string).map((text) => whole(flag, text, least));
  const among = <T extends string>(flag: keyof typeof OPTIONS, known: readonly T[]): T[] =>
    list(flags[flag] as string).map((text) => {
      if (!(known as readonly string[]).includes(text)) throw new BenchUsageError(`--${flag} takes ${known.join(", ")}, not "${text}"`);
      return text as T;
    });
  if (flags.json && flags.markdown) throw new BenchUsageError("--json and --markdown: give one of them (--json prints JSON, and writes no Markdown)");
  const concurrency = flags.concurrency ? value("concurrency", 1) : 0;
  return {
    args,
    sizes: wholes("sizes"),
    cli: wholes("cli"),
    latencyMs: value("latency"),
    concurrencyFlag: flags.concurrency,
    concurrency: concurrency ? { list: concurrency, removal: concurrency } : { list: DEFAULT_LIST_CONCURRENCY, removal: DEFAULT_REMOVAL_CONCURRENCY },
    timeScale: value("time-scale", 1),
    timeoutS: value("timeout-s", 1),
    nodeOptions: flags["node-options"],
    tools: among("tools", TOOLS),
    limits: among("limits", LIMITS),
    latencyRows: wholes("latency-rows"),
    latencyProjects: value("latency-projects", 1),
    scaledLatencyMs: value("scaled-latency", 1),
    durable: value("durable"),
    durableProjects: value("durable-projects"),
    durableInvocationS: value("durable-invocation-s", 1),
    bucket: value("bucket"),
    watch: value("watch"),
    watchIntervalS: value("watch-interval-s", 1),
    stream: value("stream"),
    notices: value("notices"),
    json: flags.json,
    markdown: flags.markdown,
    help: flags.help,
  };
}

/**
 * --markdown's file can be written: checked before anything runs, since the file is written only once
 * every row has (a mistyped directory would otherwise cost the whole run and what it measured).
 */
export function checkMarkdownFile(file: string): void {
  if (!file) return;
  const dir = dirname(resolve(file));
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new BenchUsageError(`--markdown: cannot write into ${dir} (${(err as NodeJS.ErrnoException).code}): give a file in an existing directory you can write to`);
  }
  const existing = statSync(file, { throwIfNoEntry: false });
  if (existing?.isDirectory()) throw new BenchUsageError(`--markdown: ${file} is a directory: give a file, such as docs/benchmarks.md`);
  if (existing) {
    try {
      accessSync(file, constants.W_OK);
    } catch {
      throw new BenchUsageError(`--markdown: ${file} cannot be written (no permission): give a file you can write to`);
    }
  }
}

/** Warden's concurrency in words, for the text beside a table. */
export function concurrencyText(settings: Settings): string {
  const { list, removal } = settings.concurrency;
  return settings.concurrencyFlag ? `--concurrency ${settings.concurrencyFlag}` : `its defaults (${list} examination requests, ${removal} removals in flight)`;
}
