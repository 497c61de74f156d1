/**
 * The stream row: time to enforcement when GitLab streams its audit events (Ultimate) to the Events
 * function. One stray share at a time is added to the simulator; its event goes to the Events handler,
 * whose asynchronous invoke runs the EventsWorker's subject run; the clock stops when the share is gone
 * (bin/bench/stream-run.ts, in a process of its own).
 */
import { fileURLToPath } from "node:url";
import type { Bench } from "../context.ts";
import { ms } from "../format.ts";
import { table, type RowKind } from "../row-kind.ts";
import type { RunResult } from "../run-result.ts";
import { runProcess } from "../run-process.ts";

const RUNNER = fileURLToPath(new URL("../stream-run.ts", import.meta.url));

export interface StreamRow extends RunResult {
  events: number;
  latencyMs: number;
  /** Each share's milliseconds from its creation to its removal, the Events function's answer, and the GitLab requests its run sent. */
  samples: { ms: number; answerMs: number; requests: number }[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const worst = (values: number[]) => Math.max(...values);

export const streamRows: RowKind<StreamRow> = {
  title: "Time to enforcement (stream)",
  key: "streamRows",

  async measure(bench: Bench) {
    const events = bench.settings.stream;
    if (!events) return [];
    bench.progress(`${events} stray shares streamed to the Events function one at a time, GitLab at ${bench.settings.latencyMs} ms a request…`);
    const result = await runProcess<StreamRow>(RUNNER, [String(events), String(bench.settings.latencyMs), bench.policy], { nodeOptions: bench.settings.nodeOptions, timeoutS: bench.settings.timeoutS });
    return [{ ...result, events, latencyMs: bench.settings.latencyMs, samples: result.samples ?? [] }];
  },

  about: (settings) => `Time to enforcement when GitLab streams its audit events (Ultimate) to the Events function: ${settings.stream} \
stray shares added one at a time to a simulated GitLab (1,000 projects, ${settings.latencyMs} ms a request); each share's \
\`project_group_link_created\` event goes to the Events handler as GitLab sends it (form-encoded JSON, the streaming token), whose \
asynchronous invoke runs the EventsWorker's run for that project, on a loopback stand-in of Lambda's Invoke API; the clock runs from the \
share's creation to its removal ([bin/bench/stream-run.ts](../bin/bench/stream-run.ts)). GitLab's own delay before it streams an \
event is not in it, nor Lambda's cold starts or queueing of the asynchronous invoke (a few hundred milliseconds each on AWS).`,

  table(rows) {
    return table(
      ["shares", "latency", "median", "worst", "Events answer (worst)", "GitLab requests an event", "requests an hour, idle", "completed"],
      "|---:|---:|---:|---:|---:|---:|---:|---|",
      rows.map((r) => {
        const times = r.samples.map((x) => x.ms);
        return [
          String(r.samples.length),
          `${r.latencyMs} ms`,
          times.length ? ms(median(times)) : "—",
          times.length ? ms(worst(times)) : "—",
          times.length ? ms(worst(r.samples.map((x) => x.answerMs))) : "—",
          times.length ? String(median(r.samples.map((x) => x.requests))) : "—",
          "0",
          r.error ? `no: ${r.error.slice(0, 80)}` : "yes",
        ];
      }),
    );
  },

  legend: () => `- *GitLab requests an event*: what one subject's run sends (median): the token check, the scope, the target's \
look-up (which is its read), who added the stray (audit events), the removal. The stream costs nothing while nothing happens (*idle*): \
GitLab pushes, nobody polls.`,

  targets(rows) {
    if (!rows.length) return [];
    const [r] = rows as [StreamRow];
    const times = r.samples.map((x) => x.ms);
    const done = !r.error && r.samples.length === r.events;
    return [
      { target: "stream: every share removed", met: done, measured: done ? `${r.samples.length} of ${r.events}` : (r.error ?? `${r.samples.length} of ${r.events}`) },
      { target: "stream: worst time from a share's creation to its removal under 5 s", met: done && worst(times) < 5_000, measured: times.length ? ms(worst(times)) : "—" },
      { target: "stream: the Events function answers within 1 s", met: done && r.samples.every((x) => x.answerMs < 1_000), measured: times.length ? ms(worst(r.samples.map((x) => x.answerMs))) : "—" },
    ];
  },
};
