/**
 * GitLab shows a budget only on its 429s by default. Once one 429 has shown it, the windows after it
 * are counted by the client (lib/http/rate-limiter.ts): a window costs one 429 (the request sent
 * alone once the count is spent), not one for every request in flight when the budget ran out.
 */
import pMap from "p-map";
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

describe("a budget shown on 429s only", () => {
  it("costs about one 429 a window once it is known, with 16 requests in flight, and every request succeeds", async () => {
    sim = await startGitLabSim({ rateLimits: [{ route: "GET /projects/:id", limit: 15, windowMs: 1_000, headers: "full", advertise: false }] });
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const ids = sim.dataset.projects.slice(0, 60).map((p) => p.id);
    const started = Date.now();
    const read = await pMap(ids, (id) => gitlab.getProject(id), { concurrency: 16 });
    const windows = Math.ceil((Date.now() - started) / 1_000) + 1;
    expect(read.map((p) => p.id)).toEqual(ids);
    const throttled = sim.counters.status["429"] ?? 0;
    // The first window learns the budget the hard way (up to the 16 in flight); each later one, once.
    expect(throttled).toBeLessThanOrEqual(16 + windows);
    expect(sim.counters.requests).toBe(ids.length + throttled);
  });
});
