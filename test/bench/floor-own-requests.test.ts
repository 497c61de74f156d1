/**
 * The size row's floor is the least time Warden's own schedule allows: it schedules the project listings
 * Warden's examination sends (listing-bound.ts), which takes most projects from the group details it
 * reads anyway, not every project in full pages (the lower bound's listing run).
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BENCH_POLICY } from "../../bin/bench/context.ts";
import { floorMs, type Work } from "../../bin/bench/schedule.ts";
import { startSimHost, type SimHost } from "../../bin/bench/sim-host.ts";
import { main } from "../../bin/cli/main.ts";
import { DEFAULT_LIST_CONCURRENCY, DEFAULT_REMOVAL_CONCURRENCY } from "../../lib/jobs/index.ts";

const LATENCY = 20;
const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe("the size row's floor at 10,000 projects", () => {
  let sim: SimHost;
  let byRoute: Record<string, number>;
  beforeAll(async () => {
    sim = await startSimHost({ projects: 10_000, latencyMs: 0, rateLimits: [] });
    const policy = join(tmpdir(), "bench-policy.yaml");
    writeFileSync(policy, BENCH_POLICY);
    // What the size row's Warden runs (bin/bench/warden-run.ts): plan + apply with the CLI's defaults.
    const code = await main(["enforce", "--apply", "--json", "--policy", policy], { stdout: sink(), stderr: sink(), env: { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token } });
    expect(code).toBe(0);
    byRoute = (await sim.counters()).byRoute;
  }, 60_000);
  afterAll(() => sim?.stop());

  it("counts the project listings Warden sends, and is no longer than the same schedule of the requests Warden actually sends", () => {
    // The row's Work, as bin/bench/rows/size.ts builds it.
    const work: Work = { projects: sim.inScope, listings: sim.listings, groups: sim.groups, strays: sim.strays, auditPages: sim.auditPages, auditRounds: sim.auditRounds, authors: sim.authors };
    const benchFloor = floorMs(work, DEFAULT_LIST_CONCURRENCY, LATENCY, [], true, DEFAULT_REMOVAL_CONCURRENCY);
    const listed = byRoute["GET /groups/:id/projects"] ?? 0;
    const ownFloor = floorMs({ ...work, listings: listed }, DEFAULT_LIST_CONCURRENCY, LATENCY, [], true, DEFAULT_REMOVAL_CONCURRENCY);
    expect({ listed, groupReads: byRoute["GET /groups/:id"] }).toEqual({ listed: sim.listings, groupReads: sim.groups });
    expect(benchFloor, `the bench's floor (${benchFloor} ms) schedules ${sim.listings} listing requests; Warden sent ${listed} (floor of that: ${ownFloor} ms)`).toBeLessThanOrEqual(ownFloor);
  });
});
