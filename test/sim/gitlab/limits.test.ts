/** The GitLab simulator's rate limits, injected faults and request counters. */
import { describe, expect, it } from "vitest";
import { READER, TOKENS, api, sharedProject, withSim } from "../../support/gitlab-api.ts";

describe("rate limits", () => {
  it("under a full rule, budgets successes and sends every header with the 429", async () => {
    await withSim({ rateLimits: [{ route: "GET /projects", limit: 2, windowMs: 60_000 }] }, async (sim) => {
      const remaining = [];
      for (let i = 0; i < 2; i++) {
        const ok = await api(sim, "/projects");
        expect(ok.headers.get("ratelimit-limit")).toBe("2");
        remaining.push(ok.headers.get("ratelimit-remaining"));
      }
      expect(remaining).toEqual(["1", "0"]);
      expect((await api(sim, "/projects/1")).status).toBe(200); // another route, its own budget
      const res = await api(sim, "/projects");
      expect([res.status, await res.text()]).toEqual([429, "Retry later"]);
      const h = Object.fromEntries(res.headers);
      expect(h).toMatchObject({ "ratelimit-limit": "2", "ratelimit-observed": "3", "ratelimit-remaining": "0" });
      expect(h["ratelimit-name"]).toBeTruthy();
      expect(Number(h["retry-after"])).toBeGreaterThanOrEqual(59);
      expect(Number(h["ratelimit-reset"]) - Date.now() / 1000).toBeGreaterThan(58);
      expect(Date.parse(h["ratelimit-resettime"]!) - Date.now()).toBeGreaterThan(58_000);
    });
  });

  it("sends only the headers of the rule's mode, and limits per token", async () => {
    await withSim({ tokens: TOKENS }, async (sim) => {
      const retryHeaders = (res: Response) =>
        Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("ratelimit") || k === "retry-after").map(([k]) => [k, "set"]));
      const expected = { "retry-after-only": { "retry-after": "set" }, "reset-only": { "ratelimit-reset": "set" }, none: {} } as const;
      for (const [mode, headers] of Object.entries(expected)) {
        sim.setRateLimits([{ limit: 1, windowMs: 60_000, headers: mode as keyof typeof expected }]);
        expect((await api(sim, "/user")).status).toBe(200);
        expect((await api(sim, "/user", { token: READER })).status).toBe(200);
        const res = await api(sim, "/user");
        expect([res.status, retryHeaders(res)]).toEqual([429, headers]);
        expect((await api(sim, "/projects", { token: null })).status).toBe(200); // route-less rules spare anonymous calls
      }
    });
  });
});

describe("faults", () => {
  it("answers 429 in each header style", async () => {
    await withSim({}, async (sim) => {
      sim.addFaults(
        { kind: "429", headers: "retry-after", seconds: 3, route: "GET /projects", times: 1 },
        { kind: "429", headers: "retry-after-date", seconds: 3, route: "GET /projects", times: 1 },
        { kind: "429", headers: "reset-only", seconds: 3, route: "GET /projects", times: 1 },
        { kind: "429", headers: "none", route: "GET /projects", times: 1 },
        { kind: "429", headers: "retry-after", seconds: 0, route: "GET /projects", times: 1 },
      );
      const get = async () => {
        const res = await api(sim, "/projects");
        expect([res.status, await res.text()]).toEqual([429, "Retry later"]);
        return [res.headers.get("retry-after"), res.headers.get("ratelimit-reset")];
      };
      expect(await get()).toEqual(["3", null]);
      const [date] = await get();
      expect((Date.parse(date!) - Date.now()) / 1000).toBeGreaterThan(1.5);
      expect((Date.parse(date!) - Date.now()) / 1000).toBeLessThanOrEqual(4);
      const [, reset] = await get();
      expect(Number(reset) - Date.now() / 1000).toBeGreaterThan(1.5);
      expect(await get()).toEqual([null, null]);
      expect(await get()).toEqual(["0", null]);
      expect((await api(sim, "/projects")).status).toBe(200);
    });
  });

  it("applies status, drop and delay faults in order, to matching requests only", async () => {
    await withSim({}, async (sim) => {
      sim.addFaults({ kind: "status", status: 502, route: "/projects/:id", method: "GET", times: 2 }, { kind: "drop", route: "GET /user", times: 1 }, { kind: "delay", ms: 150, times: 1 });
      expect((await api(sim, "/projects")).status).toBe(200); // not matched by the first two; takes the delay
      expect((await api(sim, "/projects/1")).status).toBe(502);
      expect((await api(sim, "/projects/1")).status).toBe(502);
      expect((await api(sim, "/projects/1")).status).toBe(200);
      await expect(api(sim, "/user")).rejects.toThrow();
      expect((await api(sim, "/user")).status).toBe(200);
      sim.addFaults({ kind: "delay", ms: 150, times: 1 });
      const started = performance.now();
      expect((await api(sim, "/user")).status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      expect(sim.counters.status).toMatchObject({ "502": 2, dropped: 1 });
    });
  });

  it("apply-then-status performs the mutation before answering the error", async () => {
    await withSim({}, async (sim) => {
      const project = sharedProject(sim.dataset, new Set());
      const groupId = project.shared_with_groups[0]!.group_id;
      sim.addFaults({ kind: "apply-then-status", status: 502, route: "DELETE /projects/:id/share/:group_id", times: 1 });
      const res = await api(sim, `/projects/${project.id}/share/${groupId}`, { method: "DELETE" });
      expect(res.status).toBe(502);
      expect(project.shared_with_groups.map((s) => s.group_id)).not.toContain(groupId);
      expect((await api(sim, `/projects/${project.id}/share/${groupId}`, { method: "DELETE" })).status).toBe(404);
    });
  });
});

describe("counters", () => {
  it("counts by route and status, and tracks peak concurrency", async () => {
    await withSim({ latencyMs: 60 }, async (sim) => {
      await Promise.all([1, 2, 3, 4, 5, 6].map((id) => api(sim, `/projects/${id}`).then((r) => r.arrayBuffer())));
      await api(sim, "/nowhere");
      expect(sim.counters).toMatchObject({ requests: 7, maxConcurrency: 6, byRoute: { "GET /projects/:id": 6, "GET *": 1 }, status: { "200": 6, "404": 1 } });
      sim.resetCounters();
      expect(sim.counters).toMatchObject({ requests: 0, maxConcurrency: 0, byRoute: {}, status: {} });
    });
  });
});

describe("latency", () => {
  it("answers at the latency after arrival, the simulator's own work within it", async () => {
    // 200 ms of work on the simulator's one thread (a hook standing for a busy round) within 400 ms of
    // latency: the answer is not later for it, as a server's work is within its response time.
    await withSim({ latencyMs: 400 }, async (sim) => {
      sim.beforeAnswer(() => {
        const until = performance.now() + 200;
        while (performance.now() < until);
      });
      const started = performance.now();
      await (await api(sim, "/projects/1")).arrayBuffer();
      const took = performance.now() - started;
      expect(took).toBeGreaterThanOrEqual(399);
      expect(took).toBeLessThan(550);
    });
  });
});
