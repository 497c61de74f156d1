/**
 * The token-bucket row: Warden's dry run behind a front proxy's token bucket that answers bare 429s
 * (nginx's limit_req; no header on any 429), the case where only the requests in flight adapting to the
 * server (lib/http/concurrency.ts) and short, growing waits on bare 429s keep a run going at the rate the
 * bucket allows.
 */
import type { TokenBucketOptions } from "../../../sim/gitlab/token-bucket.ts";
import type { Bench } from "../context.ts";
import { count, outcomeCell, ratio, rssCell, s } from "../format.ts";
import { table, type RowKind } from "../row-kind.ts";
import type { RunResult } from "../run-result.ts";
import { startSimHost } from "../sim-host.ts";

export const BUCKET: TokenBucketOptions = { ratePerSecond: 20, burst: 4 };

export interface BucketRow extends Partial<RunResult> {
  projects: number;
  bucket: TokenBucketOptions;
  /** Requests the simulator received, and of them the ones it refused (429). */
  requests: number;
  rateLimited: number;
  /** What the bucket itself allows: the requests it let through ÷ its rate. */
  bucketMs: number;
  /** The run ended complete: no request abandoned, no error. */
  completed: boolean;
}

/** The row from what the run and the simulator counted. */
export function bucketRow(projects: number, result: RunResult, requests: number, rateLimited: number): BucketRow {
  return { projects, bucket: BUCKET, ...result, requests, rateLimited, bucketMs: ((requests - rateLimited) / BUCKET.ratePerSecond) * 1000, completed: !result.error };
}

async function measureOne(bench: Bench, projects: number): Promise<BucketRow> {
  const sim = await startSimHost({ projects, latencyMs: bench.settings.latencyMs, rateLimits: [], tokenBucket: BUCKET });
  try {
    const result = await bench.run("warden", [sim.url, sim.token, bench.policy, "dry"]);
    const counters = await sim.counters();
    return bucketRow(sim.inScope, result, counters.requests, counters.status["429"] ?? 0);
  } finally {
    sim.stop();
  }
}

export const bucketRows: RowKind<BucketRow> = {
  title: "Token bucket: bare 429s",
  key: "bucketRows",

  async measure(bench) {
    if (!bench.settings.bucket) return [];
    bench.progress(`${bench.settings.bucket} projects behind a token bucket (${BUCKET.ratePerSecond}/s, burst ${BUCKET.burst}, bare 429s): Warden dry run…`);
    return [await measureOne(bench, bench.settings.bucket)];
  },

  about: (settings) => `Warden's dry run with its defaults, ${count(settings.bucket)} projects at ${settings.latencyMs} ms a request, behind a \
front proxy's token bucket over every request (${BUCKET.ratePerSecond} a second, burst ${BUCKET.burst}) that answers 429 with no header at \
all, as nginx's \`limit_req\` or a throttle whose headers a proxy strips ([bin/bench/rows/bucket.ts](../bin/bench/rows/bucket.ts)). Only \
the requests in flight adapting to the server ([lib/http/concurrency.ts](../lib/http/concurrency.ts)) and short, growing waits on each \
bare 429 keep such a run going at the rate the bucket allows.`,

  table(rows) {
    return table(
      ["projects", "bucket", "run", "wall", "bucket allows", "wall ÷ bucket", "requests", "of them 429", "lowest concurrency", "peak RSS", "completed"],
      "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
      rows.map((r) => [count(r.projects), `${r.bucket.ratePerSecond}/s, burst ${r.bucket.burst}, bare 429s`, "dry run", s(r.wallMs), s(r.bucketMs), ratio(r.wallMs!, r.bucketMs), String(r.requests), String(r.rateLimited), String(r.lowestConcurrency ?? "—"), rssCell(r), outcomeCell(r.completed, r.error)]),
    );
  },

  legend: () => `- *bucket allows*: the requests it let through ÷ its rate, the least time any client could take. *lowest concurrency*: \
the fewest requests in flight Warden came down to after 429s (it climbs back by one per run of successes).`,

  targets(all) {
    if (!all.length) return [];
    const each = (f: (r: BucketRow) => string) => all.map((r) => `${count(r.projects)}: ${f(r)}`).join(", ");
    return [
      { target: "token bucket, bare 429s: the dry run completes, no request abandoned", met: all.every((r) => r.completed), measured: each((r) => (r.completed ? "completed" : (r.error ?? "incomplete"))) },
      { target: "token bucket, bare 429s: within 1.3× of what the bucket allows", met: all.every((r) => r.wallMs! <= 1.3 * r.bucketMs), measured: each((r) => ratio(r.wallMs!, r.bucketMs)) },
      { target: "token bucket, bare 429s: fewer 429s than requests answered", met: all.every((r) => r.rateLimited < r.requests - r.rateLimited), measured: each((r) => `${r.rateLimited} 429s, ${r.requests - r.rateLimited} answered`) },
    ];
  },
};
