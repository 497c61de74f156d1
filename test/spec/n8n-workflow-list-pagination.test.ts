/**
 * Spec conformance: docs/api-contract.md (n8n public API), rule by rule, exercised
 * through Warden's own n8n client (lib/n8n, lib/paging, lib/http) against the n8n simulator over
 * loopback sockets, for both API generations (n8n 1.x and 2.40+): the sheet is the same for both,
 * and where the service differs (a limit above 250: 1.x answers 400, 2.x cuts it to 250) Warden must
 * never depend on which one it talks to.
 *
 * Rules that describe the service only:
 * - §1 what the platform is for.
 * - §2 the fields of a workflow object, §3 states and transitions, §6 events, §7 errors: "not shown".
 * - §4 the cloud offering's base address: the same client code path as a self-hosted address
 *   without a path prefix (tested); other endpoints: "not shown".
 * - §5 whether the key is needed on the follow-up request, how keys are issued, what a key may do:
 *   "not shown" (Warden sends the key on every request; tested).
 * - §8 behaviour when `limit` exceeds 250 and rate limits: "not shown" (Warden never sends a limit
 *   above 250; tested).
 * - §9 the current value of the version number: "not shown" (Warden speaks v1; tested).
 */
import { describe, expect, it } from "vitest";
import type { N8nClientOptions } from "../../lib/n8n/index.ts";
import { isActive } from "../../lib/n8n/index.ts";
import { generateWorkflows, startN8nSim, type N8nSim, type N8nSimOptions } from "../../sim/n8n/index.ts";
import { afterTest } from "../support/cleanup.ts";
import { headerValue, n8nClient, queryOf, startProxy, tap } from "../support/spec.ts";


interface ListBody {
  data: { id: string }[];
  nextCursor?: string | null;
}
const bodyOf = (text: string): ListBody => JSON.parse(text) as ListBody;
/** Query parameters of a recorded request, `cursor` left out. */
const withoutCursor = (url: string): [string, string][] => [...queryOf(url)].filter(([k]) => k !== "cursor").sort(([a], [b]) => a.localeCompare(b));

describe.each([1, 2] as const)("n8n API generation %i", (generation) => {
  async function n8n(opts: Omit<Partial<N8nSimOptions>, "generation"> & { count?: number } = {}, clientOpts: Partial<N8nClientOptions> = {}) {
    const { count = 600, ...simOpts } = opts;
    const sim = afterTest.add(await startN8nSim({ generation, recordRequests: true, workflows: generateWorkflows({ count, seed: 5 }), ...simOpts }));
    return { sim, client: n8nClient(sim.url, sim.apiKey, clientOpts) };
  }
  const allIds = (sim: N8nSim): string[] => sim.workflows.map((w) => w.id);
  const activeIds = (sim: N8nSim): string[] => sim.workflows.filter((w) => w.active).map((w) => w.id);

  describe("§1 What the service does", () => {
    it("A public HTTP API returning JSON; list endpoints are paginated with a cursor; the operation shown lists workflows, optionally only active ones", async () => {
      const { sim, client } = await n8n();
      const all = await client.listWorkflows().collect();
      const active = await client.listWorkflows({ active: true }).collect();
      expect(all.map((w) => w.id)).toEqual(allIds(sim));
      expect(active.map((w) => w.id)).toEqual(activeIds(sim));
      expect(active.length).toBeGreaterThan(100);
      expect(active.length).toBeLessThan(all.length);
      expect(sim.requests.length).toBeGreaterThan(2);
      expect(sim.requests.every((r) => r.method === "GET" && r.url.startsWith("/api/v1/workflows?"))).toBe(true);
    });
  });

  describe("§2 Resources and their fields", () => {
    it("data: an array with one object per workflow on the page", async () => {
      const { sim, client } = await n8n({ count: 600 });
      const pages = await Array.fromAsync(client.listWorkflows().pages());
      expect(pages.map((p) => p.items.length)).toEqual([250, 250, 100]);
      const ids = allIds(sim);
      expect(pages.map((p) => p.items.map((w) => w.id))).toEqual([ids.slice(0, 250), ids.slice(250, 500), ids.slice(500)]);
      expect(pages[0]!.items[0]).toMatchObject({ id: ids[0], name: sim.workflows[0]!.name });
    });

    it("nextCursor: an opaque string for requesting the next page; Warden keeps it as the listing's resume point", async () => {
      const { sim, client } = await n8n({ count: 350 });
      const seen = tap(client.http);
      const head = await Array.fromAsync(client.listWorkflows({ limit: 100 }, { maxPages: 2 }).pages());
      const cursor = bodyOf(seen[1]!.text).nextCursor;
      expect(cursor).toEqual(expect.any(String));
      expect(head[1]!.checkpoint).toEqual({ strategy: "n8n-cursor", next: cursor, pages: 2, items: 200 });
      // Resuming, e.g. in the next Lambda invocation, from the serialised checkpoint.
      const from = JSON.parse(JSON.stringify(head[1]!.checkpoint)) as typeof head[1]["checkpoint"];
      const rest = await client.listWorkflows({ limit: 100 }, { from }).collect();
      expect([...head.flatMap((p) => p.items), ...rest].map((w) => w.id)).toEqual(allIds(sim));
      expect(queryOf(sim.requests[2]!.url).get("cursor")).toBe(cursor);
    });
  });

  describe("§4 Endpoints", () => {
    it("GET {base_url}/api/v<version_number>/workflows", async () => {
      const { sim, client } = await n8n({ count: 300 });
      await client.listWorkflows().collect();
      expect(sim.requests.map((r) => [r.method, r.url.split("?")[0]])).toEqual([
        ["GET", "/api/v1/workflows"],
        ["GET", "/api/v1/workflows"],
      ]);
    });

    it("Base address of a self-hosted instance: host, port and an optional path, kept on every page", async () => {
      const { sim } = await n8n({ count: 600 });
      const proxy = afterTest.add(await startProxy({ target: sim.url, prefix: "/automation" }));
      const client = n8nClient(`${proxy.url}/automation/`, sim.apiKey);
      const all = await client.listWorkflows().collect();
      expect(all.map((w) => w.id)).toEqual(allIds(sim));
      expect(proxy.requests.map((r) => r.url.split("?")[0])).toEqual(Array(3).fill("/automation/api/v1/workflows"));
    });

    it("active (boolean): true restricts the list to active workflows", async () => {
      const { sim, client } = await n8n({ count: 600 });
      const active = await client.listWorkflows({ active: true }).collect();
      expect(active.map((w) => w.id)).toEqual(activeIds(sim));
      expect(active.every(isActive)).toBe(true);
      expect(sim.requests.every((r) => queryOf(r.url).get("active") === "true")).toBe(true);
    });

    it("limit (integer): the page size", async () => {
      const { sim, client } = await n8n({ count: 60 });
      const pages = await Array.fromAsync(client.listWorkflows({ limit: 25 }).pages());
      expect(pages.map((p) => p.items.length)).toEqual([25, 25, 10]);
      expect(sim.requests.map((r) => queryOf(r.url).get("limit"))).toEqual(["25", "25", "25"]);
    });

    it("cursor (string): the value of a previous nextCursor, sent byte for byte", async () => {
      const { sim, client } = await n8n({ count: 600 });
      const seen = tap(client.http);
      await client.listWorkflows({ limit: 7 }, { maxPages: 40 }).collect();
      expect(sim.requests).toHaveLength(40);
      for (let i = 1; i < sim.requests.length; i++) {
        const cursor = bodyOf(seen[i - 1]!.text).nextCursor!;
        expect(queryOf(sim.requests[i]!.url).get("cursor")).toBe(cursor);
      }
    });

    it("Response: a JSON object with data and, when more pages exist, nextCursor — one page and no more when it has none", async () => {
      const { sim, client } = await n8n({ count: 40 });
      const seen = tap(client.http);
      const all = await client.listWorkflows().collect();
      expect(all.map((w) => w.id)).toEqual(allIds(sim));
      expect(bodyOf(seen[0]!.text).nextCursor ?? null).toBeNull();
      expect(sim.requests).toHaveLength(1);
    });

    it("Request header: accept: application/json", async () => {
      const { sim, client } = await n8n({ count: 600 });
      await client.listWorkflows({ active: true, limit: 100 }).collect();
      expect(sim.requests.length).toBeGreaterThan(1);
      expect(sim.requests.map((r) => headerValue(r.headers, "accept"))).toEqual(sim.requests.map(() => "application/json"));
    });
  });

  describe("§4 Paging rules", () => {
    it("The first request omits cursor", async () => {
      const { sim, client } = await n8n({ count: 600 });
      await client.listWorkflows({ active: true }).collect();
      await client.listWorkflows({ limit: 50 }, { maxPages: 2 }).collect();
      const firsts = [sim.requests[0]!, sim.requests.find((r) => queryOf(r.url).get("limit") === "50")!];
      expect(firsts.map((r) => queryOf(r.url).has("cursor"))).toEqual([false, false]);
      expect(sim.requests.filter((r) => !queryOf(r.url).has("cursor"))).toHaveLength(2);
    });

    it("When the result spans more than one page, the response includes nextCursor; Warden asks for the next page exactly then", async () => {
      const { sim, client } = await n8n({ count: 530 });
      const seen = tap(client.http);
      await client.listWorkflows({ limit: 100 }).collect();
      expect(seen.map((s) => typeof bodyOf(s.text).nextCursor)).toEqual([...Array(5).fill("string"), "object"]);
      expect(sim.requests).toHaveLength(6);
    });

    it("To obtain the next page, repeat the same request (same active and limit) adding cursor=<nextCursor>", async () => {
      const { sim, client } = await n8n({ count: 600 });
      const seen = tap(client.http);
      const active = await client.listWorkflows({ active: true, limit: 40 }).collect();
      // The cursor keeps no filter: a follow-up without active=true would page through everything.
      expect(active.map((w) => w.id)).toEqual(activeIds(sim));
      const [first, ...rest] = sim.requests;
      expect(rest.length).toBeGreaterThanOrEqual(3);
      expect(queryOf(first!.url).get("active")).toBe("true");
      rest.forEach((r, i) => {
        expect(withoutCursor(r.url)).toEqual(withoutCursor(first!.url));
        expect(queryOf(r.url).get("cursor")).toBe(bodyOf(seen[i]!.text).nextCursor);
      });
    });

    it("Example: fetching all active workflows 150 at a time uses active=true&limit=150", async () => {
      const { sim, client } = await n8n({ count: 600 });
      const pages = await Array.fromAsync(client.listWorkflows({ active: true, limit: 150 }).pages());
      const expected = activeIds(sim);
      expect(expected.length).toBeGreaterThan(150);
      expect(pages.flatMap((p) => p.items.map((w) => w.id))).toEqual(expected);
      expect(pages.map((p) => p.items.length)).toEqual(pages.map((_, i) => Math.min(150, expected.length - i * 150)));
      expect(sim.requests.every((r) => queryOf(r.url).get("active") === "true" && queryOf(r.url).get("limit") === "150")).toBe(true);
      expect(sim.requests).toHaveLength(Math.ceil(expected.length / 150));
    });

    it("The last page's nextCursor is null: Warden stops there, with no further request", async () => {
      const { sim, client } = await n8n({ count: 500 });
      const seen = tap(client.http);
      const pages = await Array.fromAsync(client.listWorkflows().pages());
      // 500 = 2 × 250: the second page is full, yet the last.
      expect(pages.map((p) => p.items.length)).toEqual([250, 250]);
      expect(bodyOf(seen[1]!.text).nextCursor).toBeNull();
      expect(pages[1]!.checkpoint.next).toBeNull();
      expect(sim.requests).toHaveLength(2);
    });
  });

  describe("§5 Authentication", () => {
    it("The first request carries the header X-N8N-API-KEY: <API_KEY>", async () => {
      const { sim, client } = await n8n({ count: 40 });
      await client.listWorkflows().collect();
      expect(sim.requests).toHaveLength(1);
      expect(headerValue(sim.requests[0]!.headers, "x-n8n-api-key")).toBe(sim.apiKey);
    });

    it("The follow-up request with a cursor: Warden sends X-N8N-API-KEY there too, and never puts the key in a URL", async () => {
      const { sim, client } = await n8n({ count: 600 });
      await client.listWorkflows({ limit: 100 }).collect();
      const followUps = sim.requests.filter((r) => queryOf(r.url).has("cursor"));
      expect(followUps).toHaveLength(5);
      expect(followUps.map((r) => headerValue(r.headers, "x-n8n-api-key"))).toEqual(Array(5).fill(sim.apiKey));
      expect(sim.requests.some((r) => r.url.includes(sim.apiKey))).toBe(false);
      expect(sim.counters.status).toEqual({ "200": 6 });
    });
  });

  describe("§8 Limits", () => {
    it("Default page size 100: Warden never relies on it; every request names its limit", async () => {
      const { sim, client } = await n8n({ count: 600 });
      await client.listWorkflows().collect();
      await client.listWorkflows({ active: true }).collect();
      await client.listWorkflows({ limit: 100 }).collect();
      expect(sim.requests.length).toBeGreaterThanOrEqual(8);
      expect(sim.requests.filter((r) => !queryOf(r.url).has("limit"))).toEqual([]);
    });

    it("Maximum page size (limit) 250: Warden asks for 250 unless told less", async () => {
      const { sim, client } = await n8n({ count: 600 });
      const pages = await Array.fromAsync(client.listWorkflows().pages());
      expect(pages.map((p) => p.items.length)).toEqual([250, 250, 100]);
      expect(sim.requests.map((r) => queryOf(r.url).get("limit"))).toEqual(["250", "250", "250"]);
    });

    it.each([251, 1_000, 0, -1, 2.5])(
      "limit %s is never sent (above 250: 1.x answers 400, 2.x cuts it; 0 and below: everything and a cursor that never ends): RangeError before any request",
      async (limit) => {
        const { sim, client } = await n8n({ count: 40 });
        expect(() => client.listWorkflows({ limit })).toThrow(RangeError);
        expect(sim.counters.requests).toBe(0);
      },
    );

    it("limit 1 and 250, the bounds, are sent as given", async () => {
      const { sim, client } = await n8n({ count: 260 });
      expect((await client.listWorkflows({ limit: 1 }, { maxPages: 3 }).collect()).map((w) => w.id)).toEqual(allIds(sim).slice(0, 3));
      expect((await client.listWorkflows({ limit: 250 }).collect()).map((w) => w.id)).toEqual(allIds(sim));
      expect(sim.requests.map((r) => queryOf(r.url).get("limit"))).toEqual(["1", "1", "1", "250", "250"]);
      expect(sim.counters.status).toEqual({ "200": 5 });
    });
  });

  describe("§9 Versioning", () => {
    it("The API path carries a version segment v<version_number>: Warden speaks v1", async () => {
      const { sim, client } = await n8n({ count: 300 });
      await client.listWorkflows({ active: true }).collect();
      await client.listWorkflows().collect();
      expect(sim.requests.length).toBeGreaterThanOrEqual(3);
      expect(sim.requests.filter((r) => !/^\/api\/v1\/workflows(\?|$)/.test(r.url))).toEqual([]);
    });
  });
});
