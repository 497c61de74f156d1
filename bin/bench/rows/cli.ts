/**
 * The CLI rows: the packed CLI run as a user runs it (cli-process.ts: `node warden.js enforce --apply`,
 * Node's defaults, no NODE_OPTIONS), plan + apply in one process, at each --cli size. The size rows run
 * the same job bundled with the functions' NODE_OPTIONS: these say what a laptop or a CI job sees.
 */
import { runCli, type CliRun } from "../cli-process.ts";
import { count, ms, outcomeCell, rssCell } from "../format.ts";
import { table, type RowKind, type Target } from "../row-kind.ts";
import { startSimHost } from "../sim-host.ts";

/** The CLI's peak RSS a user may expect at 100,000 projects (issue 32). */
export const CLI_RSS_TARGET_MB = 150;

export interface CliRow extends CliRun {
  projects: number;
  /** Requests the simulator answered (every one sent, 429s included). */
  requests: number;
  converged: boolean;
}

export const cliRows: RowKind<CliRow> = {
  title: "The CLI as a user runs it",
  key: "cliRows",

  async measure(bench) {
    const rows: CliRow[] = [];
    for (const projects of bench.settings.cli) {
      bench.progress(`${projects} projects: node warden.js enforce --apply, no NODE_OPTIONS…`);
      const sim = await startSimHost({ projects, latencyMs: bench.settings.latencyMs, rateLimits: [] });
      try {
        const result = await runCli(bench.cli, sim.url, sim.token, bench.policy, true, bench.settings.timeoutS);
        rows.push({ projects, ...result, requests: (await sim.counters()).requests, converged: !result.error && (await sim.remainingStrays()) === 0 });
      } finally {
        sim.stop();
      }
    }
    return rows;
  },

  about: (settings) =>
    `The packed CLI (\`dist/warden.js\`, built by \`npm pack\` as [bin/build-cli.ts](../bin/build-cli.ts) builds it) run as a \
user runs it: \`node warden.js enforce --apply --json --policy …\` in a process of its own, with Node's defaults (no \`NODE_OPTIONS\`: \
the bench's own is not passed on), plan + apply, ${settings.latencyMs} ms of latency a request, no rate limit, at \
${settings.cli.map(count).join(", ")} projects. Its peak RSS is the process's own getrusage maxRSS, written as it exits by a \
one-statement module given with \`--import\` ([bin/bench/cli-process.ts](../bin/bench/cli-process.ts)).`,

  table: (rows) =>
    table(
      ["projects", "wall", "requests", "removed", "peak RSS", "converged"],
      "|---:|---:|---:|---:|---:|---|",
      rows.map((r) => [count(r.projects), ms(r.wallMs), String(r.requests), String(r.removed), rssCell(r), outcomeCell(r.converged, r.error)]),
    ),

  legend: () => `- *peak RSS*: beside the size rows' (the same job bundled with the functions' \`NODE_OPTIONS\`, \
[lib/config/node-options.ts](../lib/config/node-options.ts)): the CLI gives itself those settings as it starts, replacing \
itself with \`node <settings> warden.js …\` in the same process ([bin/cli/heap-settings.ts](../bin/cli/heap-settings.ts); not on \
Windows), since with V8's defaults its garbage awaits collection longer (308 MB at 100,000 projects).
- *converged*: the run printed its report, exited 0 and left no stray in the simulator.`,

  targets(rows) {
    const at100k = rows.find((r) => r.projects === 100_000);
    const targets: Target[] = [];
    if (at100k) targets.push({ target: `the CLI as a user runs it (no NODE_OPTIONS): peak RSS ≤ ${CLI_RSS_TARGET_MB} MB at 100,000 projects`, met: at100k.maxRssKB / 1024 <= CLI_RSS_TARGET_MB, measured: `${(at100k.maxRssKB / 1024).toFixed(0)} MB` });
    if (rows.length) targets.push({ target: "the CLI as a user runs it: converged at every size", met: rows.every((r) => r.converged), measured: rows.map((r) => `${count(r.projects)}: ${outcomeCell(r.converged, r.error)}`).join(", ") });
    return targets;
  },
};
