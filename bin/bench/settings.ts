/** The benchmark's flags, read into plain data the row kinds and the Markdown writer take. */
import { parseArgs } from "node:util";
import { NODE_OPTIONS } from "../../lib/config/node-options.ts";
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../../lib/jobs/index.ts";
import type { Limits } from "./budgets.ts";

export type Tool = "warden" | "gitbeaker";

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

export function parseSettings(args: string[]): Settings {
  const { values: flags } = parseArgs({ args, options: OPTIONS });
  const list = (text: string) => text.split(",").filter(Boolean);
  return {
    args,
    sizes: list(flags.sizes).map(Number),
    cli: list(flags.cli).map(Number),
    latencyMs: Number(flags.latency),
    concurrencyFlag: flags.concurrency,
    concurrency: flags.concurrency ? { list: Number(flags.concurrency), removal: Number(flags.concurrency) } : { list: DEFAULT_LIST_CONCURRENCY, removal: DEFAULT_REMOVAL_CONCURRENCY },
    timeScale: Number(flags["time-scale"]),
    timeoutS: Number(flags["timeout-s"]),
    nodeOptions: flags["node-options"],
    tools: list(flags.tools) as Tool[],
    limits: list(flags.limits) as Limits[],
    latencyRows: list(flags["latency-rows"]).map(Number),
    latencyProjects: Number(flags["latency-projects"]),
    scaledLatencyMs: Number(flags["scaled-latency"]),
    durable: Number(flags.durable),
    durableProjects: Number(flags["durable-projects"]),
    durableInvocationS: Number(flags["durable-invocation-s"]),
    bucket: Number(flags.bucket),
    watch: Number(flags.watch),
    watchIntervalS: Number(flags["watch-interval-s"]),
    stream: Number(flags.stream),
    notices: Number(flags.notices),
    json: flags.json,
    markdown: flags.markdown,
    help: flags.help,
  };
}

/** Warden's concurrency in words, for the text beside a table. */
export function concurrencyText(settings: Settings): string {
  const { list, removal } = settings.concurrency;
  return settings.concurrencyFlag ? `--concurrency ${settings.concurrencyFlag}` : `its defaults (${list} examination requests, ${removal} removals in flight)`;
}
