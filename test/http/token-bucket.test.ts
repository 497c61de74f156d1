/**
 * A GitLab behind a front proxy's token bucket that answers bare 429s (nginx's limit_req): a dry run
 * completes with lib/http's defaults, no request abandoned, the requests in flight brought down to what
 * the bucket lets through, and fewer 429s than requests.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

describe("a token bucket that answers bare 429s", () => {
  it("the simulator's bucket lets its burst through at once, refuses the rest with no header, and refills at its rate", async () => {
    sim = await startGitLabSim({ tokenBucket: { ratePerSecond: 2, burst: 4 } });
    const burst = () => Promise.all(Array.from({ length: 6 }, () => fetch(`${sim.url}/api/v4/user`, { headers: { "PRIVATE-TOKEN": sim.token } })));
    const first = await burst();
    expect(first.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 429, 429]);
    for (const refused of first.filter((r) => r.status === 429)) {
      expect([...refused.headers.keys()].filter((h) => h === "retry-after" || h.startsWith("ratelimit"))).toEqual([]);
    }
    await new Promise((r) => setTimeout(r, 2_200));
    // 2.2 s at 2 a second: four tokens again, not more than the burst.
    expect((await burst()).filter((r) => r.status === 200).length).toBe(4);
  });

  it("a dry run completes with every stray planned, at about the bucket's rate, with fewer 429s than requests", async () => {
    const { dataset, intents } = generateOrganisation({ projects: 6_000, seed: 3 });
    const rate = 50;
    sim = await startGitLabSim({ dataset, latencyMs: 5, tokenBucket: { ratePerSecond: rate, burst: 4 } });
    const strays = intents.filter((i) => i.intent === "stray").length;
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry() });
    const started = Date.now();
    const report = await enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml") });
    const wallMs = Date.now() - started;

    expect(report.warnings).toEqual([]);
    expect(report.summary).toMatchObject({ complete: true, strays });
    const refused = sim.counters.status["429"] ?? 0;
    const answered = sim.counters.requests - refused;
    expect(report.stats).toMatchObject({ requests: sim.counters.requests, rateLimited: refused });
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(answered);
    expect(report.stats.lowestConcurrency).toBeGreaterThanOrEqual(1);
    expect(report.stats.lowestConcurrency).toBeLessThan(16);
    // What the bucket allows is answered ÷ rate; generous for a loaded machine (a second's wait per 429 would be far past it).
    expect(wallMs).toBeLessThan(3 * (answered / rate) * 1000 + 2_000);
  });
});
