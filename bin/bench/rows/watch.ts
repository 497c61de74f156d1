/**
 * Time to enforcement (watch): shares made in the simulator while a watch polls (lib/jobs/watch, as
 * `warden watch --apply` runs it: a poll, then the interval), timed from each share's creation to the
 * DELETE that removes it, and what the watch costs in requests an hour. In one process with the
 * simulator, at --latency; the interval is --watch-interval-s (time to removal grows with it: about
 * half an interval on average, a whole one at worst, plus the batch's run).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { cursorFor, pollOnce, watchSources } from "../../../lib/jobs/watch/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim } from "../../../sim/gitlab/index.ts";
import type { Bench } from "../context.ts";
import { count } from "../format.ts";
import { table, type RowKind } from "../row-kind.ts";

export interface WatchRow {
  projects: number;
  intervalS: number;
  shares: number;
  removed: number;
  /** Seconds from a share's creation (its POST answered) to its removal (the DELETE arriving). */
  medianS: number;
  worstS: number;
  polls: number;
  /** All the watch's requests (polls, and each batch's run with its attribution), per hour of watching. */
  requestsPerHour: number;
  /** The polls alone at a 60 s interval, the deployed Watch function's: one request a poll (the instance's events). */
  idlePerHourAt60s: number;
  /** A batch's run, on average. */
  requestsPerBatch: number;
}

const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
  guard: { maxRemovals: 100, unmatchedRules: warn }
  watch: { maxRequestsPerHour: 100000 }
`;

async function measureOne(bench: Bench, shares: number): Promise<WatchRow> {
  const { settings } = bench;
  const intervalMs = settings.watchIntervalS * 1000;
  const { dataset } = generateOrganisation({ projects: 1000, seed: 5 });
  const sim = await startGitLabSim({ dataset, latencyMs: settings.latencyMs });
  const removedAt = new Map<number, number>();
  sim.beforeAnswer((req) => {
    const project = /^\/api\/v4\/projects\/(\d+)\/share\//.exec(req.url.pathname)?.[1];
    if (req.method === "DELETE" && project) removedAt.set(Number(project), Date.now());
  });
  try {
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const policy = parsePolicy(POLICY, "bench-watch.yaml");
    const { sources } = await watchSources(gitlab, policy, intervalMs);
    let cursor = await cursorFor(gitlab, sources, undefined);
    // Projects in scope without shares, each shared once with a group outside acme (a stray).
    const targets = dataset.projects.filter((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length === 0).slice(0, shares);
    const outside = dataset.groups.find((g) => !g.full_path.startsWith("acme"))!;
    const createdAt = new Map<number, number>();
    const before = gitlab.requestCounts().requests;
    const started = Date.now();
    let polls = 0;
    let batches = 0;
    let batchRequests = 0;
    const watching = (async () => {
      while (removedAt.size < targets.length && Date.now() - started < (shares + 4) * intervalMs) {
        const sent = gitlab.requestCounts().requests;
        const polled = await pollOnce({ gitlab, policy, sources, cursor, apply: true });
        polls++;
        if (polled.report) (batches++, (batchRequests += gitlab.requestCounts().requests - sent - 1));
        cursor = polled.cursor;
        await sleep(intervalMs);
      }
    })();
    // Shares made at uneven moments across the polls: 0.37 of an interval apart, so they fall anywhere in one.
    for (const project of targets) {
      await sleep(intervalMs * 0.37);
      const res = await fetch(`${sim.url}/api/v4/projects/${project.id}/share`, { method: "POST", headers: { "private-token": sim.token, "content-type": "application/json" }, body: JSON.stringify({ group_id: outside.id, group_access: 30 }) });
      if (res.status !== 201) throw new Error(`bench watch: sharing ${project.path_with_namespace} answered ${res.status}`);
      createdAt.set(project.id, Date.now());
    }
    await watching;
    const elapsedH = (Date.now() - started) / 3_600_000;
    const seconds = targets.flatMap((p) => (removedAt.has(p.id) ? [(removedAt.get(p.id)! - createdAt.get(p.id)!) / 1000] : [])).sort((a, b) => a - b);
    return {
      projects: dataset.projects.length,
      intervalS: settings.watchIntervalS,
      shares: targets.length,
      removed: seconds.length,
      medianS: seconds[Math.floor(seconds.length / 2)] ?? NaN,
      worstS: seconds.at(-1) ?? NaN,
      polls,
      requestsPerHour: Math.round((gitlab.requestCounts().requests - before) / elapsedH),
      idlePerHourAt60s: sources.length * 60,
      requestsPerBatch: batches ? Math.round(batchRequests / batches) : 0,
    };
  } finally {
    await sim.close();
  }
}

export const watchRows: RowKind<WatchRow> = {
  title: "Time to enforcement (watch)",
  key: "watchRows",

  async measure(bench) {
    if (!bench.settings.watch) return [];
    bench.progress(`${bench.settings.watch} shares made while a watch polls every ${bench.settings.watchIntervalS} s…`);
    return [await measureOne(bench, bench.settings.watch)];
  },

  about: (settings) => `${count(settings.watch)} stray shares made at uneven moments while a watch polls the instance's audit events \
every ${settings.watchIntervalS} s with --apply (an administrator's token: one request a poll), at ${settings.latencyMs} ms a request; \
each timed from its creation to the DELETE that removes it ([bin/bench/rows/watch.ts](../bin/bench/rows/watch.ts)). The deployed Watch \
function polls every 60 s: add the difference in interval (about half of it on average, all of it at worst).`,

  table(rows) {
    return table(
      ["projects", "interval", "shares", "removed", "median to removal", "worst", "polls", "requests an hour (measured)", "a batch's run", "polls an hour at 60 s"],
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      rows.map((r) => [count(r.projects), `${r.intervalS} s`, String(r.shares), String(r.removed), `${r.medianS.toFixed(1)} s`, `${r.worstS.toFixed(1)} s`, String(r.polls), count(r.requestsPerHour), `${r.requestsPerBatch} requests`, `${r.idlePerHourAt60s} requests`]),
    );
  },

  legend: () => `- *requests an hour (measured)*: every request of the watch (polls, and each batch's targeted run with who added the \
share) over the time it watched, at the bench's interval and rate of shares. *polls an hour at 60 s*: what watching costs when nothing \
happens; without an administrator's token it is one request per scope group and subgroup a poll.`,

  targets(all) {
    if (!all.length) return [];
    return [
      { target: "watch: every share made is removed", met: all.every((r) => r.removed === r.shares), measured: all.map((r) => `${r.removed} of ${r.shares}`).join(", ") },
      { target: "watch: each share removed within two polls", met: all.every((r) => r.worstS <= 2 * r.intervalS), measured: all.map((r) => `worst ${r.worstS.toFixed(1)} s at ${r.intervalS} s`).join(", ") },
    ];
  },
};
