/**
 * The token-bucket row: Warden's dry run behind a front proxy's token bucket that answers bare 429s
 * (nginx's limit_req; no header on any 429), the case where only the requests in flight adapting to the
 * server (lib/http/concurrency.ts) and short, growing waits on bare 429s keep a run going at the rate the
 * bucket allows. Its table and targets; bin/bench.ts runs it.
 */
import type { TokenBucketOptions } from "../../sim/gitlab/token-bucket.ts";
import type { RunResult } from "./run-result.ts";

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

export function bucketMarkdown(all: BucketRow[], s: (ms: number | undefined) => string): string {
  const lines = [
    "| projects | bucket | run | wall | bucket allows | wall ÷ bucket | requests | of them 429 | lowest concurrency | peak RSS | completed |",
    "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of all) {
    lines.push(
      `| ${r.projects.toLocaleString("en")} | ${r.bucket.ratePerSecond}/s, burst ${r.bucket.burst}, bare 429s | dry run | ${s(r.wallMs)} | ${s(r.bucketMs)} | ${(r.wallMs! / r.bucketMs).toFixed(2)}× | ${r.requests} | ${r.rateLimited} | ${r.lowestConcurrency ?? "—"} | ${r.maxRssKB === undefined || Number.isNaN(r.maxRssKB) ? "—" : `${Math.round(r.maxRssKB / 1024)} MB`} | ${r.completed ? "yes" : `no: ${(r.error ?? "").slice(0, 80)}`} |`,
    );
  }
  return lines.join("\n");
}

export function bucketTargets(all: BucketRow[]) {
  if (!all.length) return [];
  const each = (f: (r: BucketRow) => string) => all.map((r) => `${r.projects.toLocaleString("en")}: ${f(r)}`).join(", ");
  return [
    { target: "token bucket, bare 429s: the dry run completes, no request abandoned", met: all.every((r) => r.completed), measured: each((r) => (r.completed ? "completed" : (r.error ?? "incomplete"))) },
    { target: "token bucket, bare 429s: within 1.3× of what the bucket allows", met: all.every((r) => r.wallMs! <= 1.3 * r.bucketMs), measured: each((r) => `${(r.wallMs! / r.bucketMs).toFixed(2)}×`) },
    { target: "token bucket, bare 429s: fewer 429s than requests answered", met: all.every((r) => r.rateLimited < r.requests - r.rateLimited), measured: each((r) => `${r.rateLimited} 429s, ${r.requests - r.rateLimited} answered`) },
  ];
}
