/**
 * A proxy (or a GitLab) that answers 429 to every read of a group's detail, for ever. Each request is
 * bounded by its retry budget (20 minutes by default), but a run reads a detail per group: when each
 * spent a budget of its own, a CLI run of 130 groups took ceil(130/16) × 20 min, some 3 hours, before its
 * report (a hostile review's finding). Once one request has given up on 429s, the route's later 429s end
 * their requests at once (lib/http/retry.ts), until it answers otherwise. Here the proxy asks for
 * Retry-After: 1 and the budget is 2 s, so the multiplication would show in seconds.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { afterTest } from "../support/cleanup.ts";
import { groupSharesPolicy } from "../support/policies.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const NOW = new Date("2026-03-10T12:00:00Z");
const BUDGET_MS = 2_000;
let sim: GitLabSim | undefined;
afterEach(() => sim?.close());

it("a 429 for ever on every subgroup's detail: once the origin has refused everything for a whole request budget, the run ends soon after, not one budget per batch of groups", async () => {
  const { dataset } = generateOrganisation({ projects: 1_500, seed: 5, tree: { groups: 130, maxDepth: 3 }, groupShares: true, now: NOW });
  const subgroups = dataset.groups.filter((g) => g.full_path.startsWith("acme/"));
  expect(subgroups.length).toBeGreaterThan(100);
  // A 429 with Retry-After: 1, for ever, on every subgroup's detail; the scope group acme itself is read.
  const faults = subgroups.map((g) => ({ kind: "429" as const, headers: "retry-after" as const, seconds: 1, method: "GET", path: `/api/v4/groups/${g.id}`, times: 1_000_000 }));
  sim = await startGitLabSim({ dataset, faults, recordRequests: true });
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, budgetMs: BUDGET_MS } });
  const started = Date.now();
  const outcome = await enforce({ gitlab, now: NOW, policy: parsePolicy(groupSharesPolicy(), "test.yaml") }).then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  const elapsed = Date.now() - started;
  const refused = sim.counters.status[429] ?? 0;
  expect(elapsed, "a run against an origin refusing every read ends within a few request budgets").toBeLessThan(2 * BUDGET_MS + 1_500);
  // The run ends with its report, each group named as not examined, and says why: one try each after the first gave up.
  expect(outcome.error).toBeUndefined();
  expect(outcome.report!.summary).toMatchObject({ complete: false, unexamined: subgroups.length });
  expect(refused).toBeLessThan(subgroups.length + 20);
  expect(outcome.report!.unexamined!.map((p) => p.error)).toContainEqual(expect.stringContaining("not retried: an earlier request to GET /groups/:id met 429s until it gave up"));
}, 120_000);

/**
 * Only a budget spent on 429s marks the route. One 429 asking past the ceiling once marked it too, and every
 * later 429 on the route then failed at once, even one asking for a wait Warden would take: a fixed window
 * longer than the ceiling (a throttle period an administrator set to an hour, a gateway's hourly limit)
 * asks early in it for too long, late in it for little (a review of the change's finding). Window 3 s, ceiling 1.5 s.
 */
it("a 429 late in a long window, asking a wait within the ceiling, is waited out even after an earlier ask above the ceiling failed", async () => {
  sim = await startGitLabSim({ rateLimits: [{ route: "GET /groups/:id", limit: 1, windowMs: 3_000, headers: "retry-after-only" }] });
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, maxServerWaitMs: 1_500 } });
  const [a, b, c] = sim.dataset.groups.slice(0, 3).map((g) => g.id);
  const opened = Date.now();
  await gitlab.getGroup(a!); // opens the window: 1 a window
  // Early in the window the server asks for 3 s, above the 1.5 s ceiling: this one fails, as designed.
  await expect(gitlab.getGroup(b!)).rejects.toThrow(/above the 1\.5 s ceiling/);
  // Late in the window it asks for 1 s (Retry-After: 1), a wait within the ceiling and the request's budget.
  await sleep(Math.max(0, opened + 2_300 - Date.now()));
  const late = await gitlab.getGroup(c!).then(
    (g) => ({ id: g.id, error: undefined as string | undefined }),
    (err: Error) => ({ id: undefined, error: err.message }),
  );
  expect(late.error, "the late request was failed at once by the earlier request's mark").toBeUndefined();
  expect(late.id).toBe(c);
}, 30_000);

/**
 * A 503 with Retry-After is the same pushback (rate-limit-layer.ts's pushedBack) and gets the same waits, so it
 * marks the route alike: a proxy in maintenance (or a load balancer answering "503, Retry-After: 600" for an
 * unhealthy upstream) on GET /groups/:id made each group read wait out its whole budget, one budget per batch
 * of groups (a hostile review's finding). The simulator has no such fault: a small front stands before it.
 */
it("a 503 with Retry-After for ever on every subgroup's detail: the run ends within a few request budgets, not one budget per batch of groups", async () => {
  const { dataset } = generateOrganisation({ projects: 1_500, seed: 5, tree: { groups: 130, maxDepth: 3 }, groupShares: true, now: NOW });
  const subgroups = dataset.groups.filter((g) => g.full_path.startsWith("acme/"));
  expect(subgroups.length).toBeGreaterThan(100);
  sim = await startGitLabSim({ dataset });
  const front = await maintenanceFront(sim.url, new Set(subgroups.map((g) => `/api/v4/groups/${g.id}`)));
  const gitlab = new GitLabClient({ url: front, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1, budgetMs: BUDGET_MS } });
  const started = Date.now();
  const outcome = await enforce({ gitlab, now: NOW, policy: parsePolicy(groupSharesPolicy(), "test.yaml") }).then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  const elapsed = Date.now() - started;
  expect(outcome.error).toBeUndefined();
  expect(outcome.report!.summary).toMatchObject({ complete: false });
  // The same bound the 429 case is held to.
  expect(elapsed, `the run took ${elapsed} ms`).toBeLessThan(2 * BUDGET_MS + 1_500);
  expect(outcome.report!.unexamined!.map((p) => p.error)).toContainEqual(expect.stringContaining("not retried: an earlier request to GET /groups/:id met 503s with Retry-After until it gave up"));
}, 180_000);

/** A front that answers 503 Retry-After: 1 to every GET of these paths, and passes the rest to `to`. */
async function maintenanceFront(to: string, refused: Set<string>): Promise<string> {
  const server = createServer((req, res) => {
    const path = new URL(req.url!, "http://x").pathname;
    if (req.method === "GET" && refused.has(path)) {
      res.writeHead(503, { "content-type": "text/plain", "retry-after": "1" });
      return res.end("Service Unavailable: back soon");
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "connection").map(([k, v]) => [k, String(v)]));
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(to + req.url, { method: req.method, headers, body });
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (k !== "content-length" && k !== "transfer-encoding" && k !== "connection" && k !== "content-encoding") out[k] = v;
      });
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  afterTest.add({ close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
