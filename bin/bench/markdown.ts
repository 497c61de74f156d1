/**
 * The benchmark's Markdown: the whole of docs/benchmarks.md, from what the row kinds measured. Its links
 * are relative to docs/, the file's home.
 */
import type { Section, Target } from "./row-kind.ts";
import type { Settings } from "./settings.ts";

/** Where and when the benchmark ran. */
export interface RunInfo {
  machine: string;
  /** ISO date and time, UTC. */
  date: string;
  commit: string;
  /** No uncommitted change in the working tree when the run started. */
  clean: boolean;
  /** The one-minute load average when the run started and when it ended: other work on the machine shows in it. */
  load: [number, number];
}

const INTRO = `## What it does

It runs Warden's enforce job and, beside it, a peer: the same job written with \
[\`@gitbeaker/rest\`](../bin/bench/gitbeaker-run.ts) the way its documentation shows (\`Groups.allProjects\` with \`perPage: 100\`, then \
\`Projects.unshare\` for each stray), on the same simulated GitLab organisation over loopback. Each run gets a fresh simulator in a \
process of its own, which answers each request the latency after it arrived, its own work within that time (as a server's is \
within its response time: [sim/gitlab/server.ts](../sim/gitlab/server.ts)); each tool runs bundled by esbuild (as SST bundles a Lambda) with the functions' \`NODE_OPTIONS\` in a process of \
its own, so peak RSS is its alone; the CLI and notices rows run the packed CLI instead, as a user runs it, with Node's defaults. Each section below is one kind of row: what it does, its table, how to read it, and its targets, \
each met or not, with the value measured. \`npm run bench -- --help\` lists the flags.

How to read the tables:

- *lower bound*: the least a run that *lists* the projects can send: three requests to resolve the scope (token check, \
an administrator's read telling whether the token acts as one, group look-up), the projects in full pages of 100 and one look-up for projects moved while they were listed, the scope's descendant groups \
in full pages, one \`GET /groups/:id\` per group in scope (no listing carries group shares), in a run that plans strays the \
audit-event pages that attribute them and one \`GET /users/:id\` per author they name, one DELETE per stray, and one re-read per \
project of a plan older than 60 s ([bin/bench/schedule.ts](../bin/bench/schedule.ts)). *× bound* is requests ÷ lower bound.
- *the audit-event pages*: the simulated GitLab records who made each share as GitLab does, for a realistic share of them \
([sim/gitlab/generate-audit-events.ts](../sim/gitlab/generate-audit-events.ts): 75 % made in the last 60 days, 15 % long before \
gitlab.attribution.days, the rest never recorded). GitLab lists a group's events only newest first, in windows of at most 30 days, \
100 a page: so for each group whose events record a stray (the invited group of a project share), its windows newest first until \
every stray of the group is found, or all 90 days of them when one is not (a share made before them, or never recorded, is \
only known absent once they are read) ([bin/bench/audit-bound.ts](../bin/bench/audit-bound.ts)). A run that applies after a \
dry run reads them again; one that plans nothing reads none.
- *floor* and *ideal*: the least time Warden's own schedule allows, computed from the requests Warden's own examination needs \
for the world, where the *lower bound* is a listing run's: the projects come with the group details, so it lists only a sample \
page of the scope group, the own projects of a group whose detail cannot carry them all (split as Warden splits them) and one \
page of the sweep for moved projects ([bin/bench/listing-bound.ts](../bin/bench/listing-bound.ts)); every request taking exactly \
the latency, its examination concurrency at a time (the audit-event pages on the same slots, each group's one after another once \
one of its strays can be seen, in the scope group's detail or a round later, each author's look-up after the page naming them; the \
sweep after the rest's last answer), the plan complete before the first removal, and under budgets every request admitted by the \
simulator's windows.
- *peer ÷ Warden*: the peer's wall time ÷ Warden's in the same conditions.`;

export function benchMarkdown(settings: Settings, info: RunInfo, sections: Section[]): string {
  const targets = sections.flatMap((section) => section.kind.targets(section.rows, settings));
  const command = ["npm run bench", ...(settings.args.length ? ["--", ...settings.args] : [])].join(" ");
  const parts = [
    "# Benchmarks",
    "> Written by `npm run bench -- --markdown docs/benchmarks.md`; never edited by hand. To change it, change the benchmark ([bin/bench/](../bin/bench/index.ts)) and run that again.",
    `Run on ${info.date} at commit \`${info.commit}\` (${info.clean ? "clean working tree" : "with uncommitted changes"}), as \`${command}\`, on ${info.machine}; load average ${info.load[0].toFixed(2)} at the start, ${info.load[1].toFixed(2)} at the end. Targets met: ${targets.filter((t) => t.met).length} of ${targets.length}.`,
    INTRO,
    ...sections.filter((section) => section.rows.length).flatMap(({ kind, rows }) => [`## ${kind.title}`, kind.about(settings), kind.table(rows), kind.legend(rows, settings), targetList(kind.targets(rows, settings))]),
  ];
  return `${parts.join("\n\n")}\n`;
}

function targetList(targets: Target[]): string {
  return ["Targets:", "", ...targets.map((t) => `- ${t.met ? "**met**" : "**NOT met**"}: ${t.target} (${t.measured})`)].join("\n");
}
