import { afterEach, describe, expect, it } from "vitest";
import { generateWorkflows, startN8nSim, type N8nSim, type N8nSimOptions, type SimWorkflow } from "../../sim/n8n/index.ts";

interface ApiWorkflow {
  id: string;
  active: boolean;
  updatedAt: string;
  activeVersionId?: string | null;
  [field: string]: unknown;
}
interface Page {
  data: ApiWorkflow[];
  nextCursor: string | null;
}
interface ErrorBody {
  message: string;
}

const started: N8nSim[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
});

async function start(generation: 1 | 2, opts: Partial<N8nSimOptions> = {}): Promise<N8nSim> {
  const sim = await startN8nSim({ generation, ...opts });
  started.push(sim);
  return sim;
}

/** One API call; `key: null` sends no API key at all. */
async function call<T>(sim: N8nSim, path: string, init: { method?: string; key?: string | null } = {}) {
  const key = init.key === undefined ? sim.apiKey : init.key;
  const res = await fetch(`${sim.url}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { accept: "application/json", ...(key !== null && { "X-N8N-API-KEY": key }) },
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

const post = <T = ApiWorkflow>(sim: N8nSim, path: string) => call<T>(sim, path, { method: "POST" });

function decode(cursor: string | null): unknown {
  return cursor === null ? null : JSON.parse(Buffer.from(cursor, "base64").toString("utf8"));
}

/** Follows nextCursor, repeating `query` on every page as n8n requires. */
async function listAll(sim: N8nSim, query: string): Promise<{ pages: Page[]; ids: string[] }> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const { status, body } = await call<Page>(sim, `/workflows?${query}${suffix}`);
    expect(status).toBe(200);
    pages.push(body);
    cursor = body.nextCursor;
  } while (cursor);
  return { pages, ids: pages.flatMap((page) => page.data.map((wf) => wf.id)) };
}

function workflow(id: string, overrides: Partial<SimWorkflow> = {}): SimWorkflow {
  const at = "2025-01-01T00:00:00.000Z";
  const base = { id, name: `Flow ${id}`, active: false, isArchived: false, tags: [], hasTrigger: true };
  return { ...base, createdAt: at, updatedAt: at, ...overrides };
}

/** Fixture for activation: one of each case the API refuses, plus an ordinary workflow. */
const activationFixture = [
  workflow("wfArchived", { isArchived: true }),
  workflow("wfConflict", { webhookConflict: true }),
  workflow("wfNoTrigger", { hasTrigger: false }),
  workflow("wfPlain"),
];

describe("generateWorkflows", () => {
  it("is deterministic per seed, sorted by id and mixes the cases Warden meets", () => {
    const workflows = generateWorkflows({ count: 40 });
    expect(generateWorkflows({ count: 40 })).toEqual(workflows);
    expect(generateWorkflows({ count: 40, seed: 2 })).not.toEqual(workflows);
    expect(workflows.map((wf) => wf.id)).toEqual(workflows.map((wf) => wf.id).sort());
    expect(new Set(workflows.map((wf) => wf.id)).size).toBe(40);
    expect(workflows.some((wf) => wf.active) && workflows.some((wf) => !wf.active)).toBe(true);
    expect(workflows.filter((wf) => wf.isArchived).length).toBeGreaterThan(0);
    expect(workflows.filter((wf) => !wf.hasTrigger).length).toBeGreaterThan(0);
    expect(workflows.filter((wf) => wf.webhookConflict).length).toBeGreaterThan(0);
    const tagNames = new Set(workflows.flatMap((wf) => wf.tags.map((tag) => tag.name)));
    expect([...tagNames]).toEqual(expect.arrayContaining(["production", "staging", "development"]));
  });
});

describe.each([1, 2] as const)("n8n %i.x workflow listing", (generation) => {
  it("pages 400 workflows 150 at a time, in id order, until nextCursor is null; every page needs the key", async () => {
    const sim = await start(generation, { workflows: generateWorkflows({ count: 400 }) });
    const { pages, ids } = await listAll(sim, "limit=150");
    expect(pages.map((page) => page.data.length)).toEqual([150, 150, 100]);
    expect(pages.map((page) => decode(page.nextCursor))).toEqual([
      { limit: 150, offset: 150 },
      { limit: 150, offset: 300 },
      null,
    ]);
    expect(ids).toEqual(sim.workflows.map((wf) => wf.id));

    const firstCursor = encodeURIComponent(pages[0]?.nextCursor ?? "");
    const anonymous = await call<ErrorBody>(sim, `/workflows?cursor=${firstCursor}`, { key: null });
    expect(anonymous.status).toBe(401);
  });

  it("keeps no filters in the cursor: a follow-up gets only what it repeats", async () => {
    const sim = await start(generation, { workflows: generateWorkflows({ count: 60 }) });
    const first = await call<Page>(sim, "/workflows?active=true&limit=5");
    const cursor = encodeURIComponent(first.body.nextCursor ?? "");
    const bare = await call<Page>(sim, `/workflows?cursor=${cursor}`);
    const repeated = await call<Page>(sim, `/workflows?active=true&cursor=${cursor}`);

    const ids = (wfs: { id: string }[]) => wfs.map((wf) => wf.id);
    expect(ids(bare.body.data)).toEqual(ids(sim.workflows.slice(5, 10)));
    expect(bare.body.data.some((wf) => !wf.active)).toBe(true);
    expect(ids(repeated.body.data)).toEqual(ids(sim.workflows.filter((wf) => wf.active).slice(5, 10)));
  });

  it("filters by tags (all given) and name, and answers bad input with n8n's 400s", async () => {
    const sim = await start(generation);
    const tagged = await call<Page>(sim, "/workflows?tags=production&name=%20SYNC%20");
    expect(tagged.body.data.length).toBeGreaterThan(0);
    for (const wf of tagged.body.data) {
      expect(wf.tags).toContainEqual(expect.objectContaining({ name: "production" }));
      expect(String(wf.name).toLowerCase()).toContain("sync");
    }
    expect(await call(sim, "/workflows?cursor=not-a-cursor")).toMatchObject({
      status: 400,
      body: { message: "An invalid cursor was provided" },
    });
    expect(await call(sim, "/workflows?active=yes")).toMatchObject({
      status: 400,
      body: { message: "request/query/active must be equal to one of the allowed values: true, false" },
    });
    // Its OpenAPI layer refuses a parameter the spec does not declare (a misspelt filter is no filter).
    expect(await call(sim, "/workflows?actve=true")).toMatchObject({ status: 400, body: { message: "Unknown query parameter 'actve'" } });
  });

  it("declares excludePinnedData from 1.73 on, on the listing and on one workflow's read; an older 1.x refuses it as unknown on both", async () => {
    const sim = await start(generation);
    const id = sim.workflows[0]!.id;
    for (const path of ["/workflows", `/workflows/${id}`]) {
      expect((await call(sim, `${path}?excludePinnedData=true`)).status, path).toBe(200);
      expect(await call(await start(generation, { pinnedDataParam: false }), `${path}?excludePinnedData=true`), path).toMatchObject({ status: 400, body: { message: "Unknown query parameter 'excludePinnedData'" } });
    }
    expect(await call(sim, `/workflows/${id}?actve=true`)).toMatchObject({ status: 400, body: { message: "Unknown query parameter 'actve'" } });
  });

  it("answers limit=0 with everything and a cursor that never ends", async () => {
    const sim = await start(generation);
    const first = await call<Page>(sim, "/workflows?limit=0");
    expect(first.body.data).toHaveLength(40);
    expect(decode(first.body.nextCursor)).toEqual({ limit: 0, offset: 0 });
    const again = await call<Page>(sim, `/workflows?cursor=${encodeURIComponent(first.body.nextCursor ?? "")}`);
    expect(again.body.data).toHaveLength(40);
    expect(again.body.nextCursor).toBe(first.body.nextCursor);
  });

  it("serves n8n's workflow fields, trims pinData on request and hides sim-only fields", async () => {
    const sim = await start(generation);
    const [full] = (await call<Page>(sim, "/workflows?limit=1")).body.data;
    const [trimmed] = (await call<Page>(sim, "/workflows?limit=1&excludePinnedData=true")).body.data;
    const fields = ["id", "name", "active", "isArchived", "createdAt", "updatedAt", "tags", "nodes", "connections"];
    expect(Object.keys(full ?? {})).toEqual(expect.arrayContaining([...fields, "settings", "pinData"]));
    expect(full).not.toHaveProperty("hasTrigger");
    expect(full).not.toHaveProperty("webhookConflict");
    expect(trimmed).not.toHaveProperty("pinData");
    expect(await call(sim, "/workflows/nope")).toMatchObject({ status: 404, body: { message: "Not Found" } });
  });

  it("skips a workflow when another one is deactivated between two pages of active=true (offset cursor)", async () => {
    const sim = await start(generation, {
      workflows: generateWorkflows({ count: 100 }),
      // After page 0 a person deactivates a workflow that page 0 already served.
      onListPage: (pageIndex, s) => {
        const firstActive = s.workflows.find((wf) => wf.active);
        if (pageIndex === 0 && firstActive) s.setActive(firstActive.id, false);
      },
    });
    const activeBefore = sim.workflows.filter((wf) => wf.active).map((wf) => wf.id);
    const { ids } = await listAll(sim, "active=true&limit=10");

    const skipped = activeBefore[10] ?? "";
    expect(ids).not.toContain(skipped);
    expect(sim.workflows.find((wf) => wf.id === skipped)?.active).toBe(true);
    expect(ids).toEqual(activeBefore.filter((id) => id !== skipped));
  });
});

describe("limit beyond 250 and negative limits", () => {
  it("n8n 1.x rejects limit > 250 and answers limit=-1 with everything", async () => {
    const sim = await start(1, { workflows: generateWorkflows({ count: 300 }) });
    expect(await call(sim, "/workflows?limit=251")).toMatchObject({
      status: 400,
      body: { message: "request/query/limit must be <= 250" },
    });
    expect((await call<Page>(sim, "/workflows?limit=-1")).body.data).toHaveLength(300);
  });

  it("n8n 2.x cuts limit > 250 to 250 and rejects a negative limit", async () => {
    const sim = await start(2, { workflows: generateWorkflows({ count: 300 }) });
    const page = await call<Page>(sim, "/workflows?limit=1000");
    expect(page.body.data).toHaveLength(250);
    expect(decode(page.body.nextCursor)).toEqual({ limit: 250, offset: 250 });
    expect((await call(sim, "/workflows?limit=-1")).status).toBe(400);
  });
});

describe("authentication and scopes", () => {
  const scopedKeys = { "list-only": { scopes: ["workflow:list"] } };

  it("n8n 1.x: 401 worded by whether the key is missing or wrong, and scopes are not enforced", async () => {
    const sim = await start(1, { apiKeys: scopedKeys, workflows: activationFixture });
    expect(await call(sim, "/workflows", { key: null })).toMatchObject({
      status: 401,
      body: { message: "'X-N8N-API-KEY' header required" },
    });
    expect(await call(sim, "/workflows", { key: "wrong" })).toMatchObject({
      status: 401,
      body: { message: "unauthorized" },
    });
    expect((await call(sim, "/workflows/wfPlain")).status).toBe(200);
    expect((await post(sim, "/workflows/wfPlain/activate")).status).toBe(200);
  });

  it("n8n 2.x: 401 Unauthorized, and 403 Forbidden when the key lacks the route's scope", async () => {
    const sim = await start(2, { apiKeys: scopedKeys, workflows: activationFixture });
    const unauthorized = { status: 401, body: { message: "Unauthorized" } };
    expect(await call(sim, "/workflows", { key: null })).toMatchObject(unauthorized);
    expect(await call(sim, "/workflows", { key: "wrong" })).toMatchObject(unauthorized);
    expect((await call(sim, "/workflows")).status).toBe(200);
    const forbidden = { status: 403, body: { message: "Forbidden" } };
    expect(await call(sim, "/workflows/wfPlain")).toMatchObject(forbidden);
    for (const verb of ["activate", "deactivate", "publish", "unpublish"]) {
      expect(await post(sim, `/workflows/wfPlain/${verb}`)).toMatchObject(forbidden);
    }
  });
});

describe("activation on n8n 1.x", () => {
  it("activates and deactivates, a repeat leaving the workflow as it is, and has no publish routes", async () => {
    const sim = await start(1, { workflows: activationFixture });
    const activated = await post(sim, "/workflows/wfPlain/activate");
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ id: "wfPlain", active: true });
    expect(activated.body).not.toHaveProperty("activeVersionId");
    expect(activated.body.updatedAt).not.toBe("2025-01-01T00:00:00.000Z");
    expect(activated.headers.get("deprecation")).toBeNull();
    expect(await post(sim, "/workflows/wfPlain/activate")).toMatchObject({ status: 200, body: { active: true } });
    expect(await post(sim, "/workflows/wfPlain/deactivate")).toMatchObject({ status: 200, body: { active: false } });
    expect(await post(sim, "/workflows/wfPlain/deactivate")).toMatchObject({ status: 200, body: { active: false } });
    expect((await post(sim, "/workflows/wfPlain/publish")).status).toBe(405);
    expect((await post(sim, "/workflows/wfPlain/unpublish")).status).toBe(405);
  });

  it("refuses no-trigger (400), unknown (404) and webhook-conflict (400) workflows, but activates archived ones", async () => {
    const sim = await start(1, { workflows: activationFixture });
    expect(await post(sim, "/workflows/wfNoTrigger/activate")).toMatchObject({
      status: 400,
      body: {
        message:
          'Workflow "Flow wfNoTrigger" (ID: wfNoTrigger) has no node to start the workflow - ' +
          "at least one trigger, poller or webhook node is required",
      },
    });
    expect(await post(sim, "/workflows/nope/activate")).toMatchObject({ status: 404, body: { message: "Not Found" } });
    const conflict = await post<ErrorBody>(sim, "/workflows/wfConflict/activate");
    expect(conflict.status).toBe(400);
    expect(conflict.body.message).toMatch(/conflict.*webhook/i);
    expect(await post(sim, "/workflows/wfArchived/activate")).toMatchObject({ status: 200, body: { active: true } });
  });

  it("keeps activeVersionId in step where the workflow has the field (n8n 1.123)", async () => {
    const sim = await start(1, { workflows: [workflow("wf123", { activeVersionId: null })] });
    const activated = await post(sim, "/workflows/wf123/activate");
    expect(activated.body.activeVersionId).toEqual(expect.any(String));
    expect((await post(sim, "/workflows/wf123/deactivate")).body.activeVersionId).toBeNull();
  });
});

describe("activation on n8n 2.x", () => {
  it("publishes and unpublishes, tracking activeVersionId; a repeat with no draft saved between leaves it as it is", async () => {
    const sim = await start(2, { workflows: activationFixture });
    const published = await post(sim, "/workflows/wfPlain/publish");
    expect(published).toMatchObject({ status: 200, body: { active: true, activeVersionId: expect.any(String) } });
    expect(published.headers.get("deprecation")).toBeNull();
    const again = await post(sim, "/workflows/wfPlain/publish");
    expect(again.body.activeVersionId).toBe(published.body.activeVersionId);
    const unpublished = { status: 200, body: { active: false, activeVersionId: null } };
    expect(await post(sim, "/workflows/wfPlain/unpublish")).toMatchObject(unpublished);
    expect(await post(sim, "/workflows/wfPlain/unpublish")).toMatchObject(unpublished);
  });

  it("still answers activate/deactivate, flagged with a Deprecation header", async () => {
    const sim = await start(2, { workflows: activationFixture });
    const cases = [
      ["activate", "publish", true],
      ["deactivate", "unpublish", false],
    ] as const;
    for (const [verb, successor, active] of cases) {
      const res = await post(sim, `/workflows/wfPlain/${verb}`);
      expect(res).toMatchObject({ status: 200, body: { active } });
      expect(res.headers.get("deprecation")).toBe("true");
      expect(res.headers.get("link")).toContain(`/api/v1/workflows/wfPlain/${successor}`);
    }
  });

  it("refuses no-trigger (400), unknown (404, permission wording), archived (400) and conflicting (409) ones", async () => {
    const sim = await start(2, { workflows: activationFixture });
    expect(await post(sim, "/workflows/wfNoTrigger/publish")).toMatchObject({
      status: 400,
      body: {
        message:
          "Workflow cannot be activated because it has no trigger node. " +
          "At least one trigger, webhook, or polling node is required.",
      },
    });
    expect(await post(sim, "/workflows/nope/activate")).toMatchObject({
      status: 404,
      body: {
        message: "You do not have permission to activate this workflow. Ask the owner of the workflow to share it with you",
      },
    });
    expect((await post<ErrorBody>(sim, "/workflows/nope/unpublish")).body.message).toContain("permission to unpublish");
    expect(await post(sim, "/workflows/wfArchived/publish")).toMatchObject({
      status: 400,
      body: { message: "Cannot activate an archived workflow" },
    });
    const conflict = await post<ErrorBody>(sim, "/workflows/wfConflict/publish");
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toMatch(/conflict.*webhook/i);
    expect(sim.workflows.every((wf) => !wf.active)).toBe(true);
  });

  it("serves activeVersionId on every workflow, null when inactive", async () => {
    const sim = await start(2);
    const { data } = (await call<Page>(sim, "/workflows?limit=0")).body;
    for (const wf of data) {
      expect(wf.activeVersionId === null).toBe(!wf.active);
    }
  });
});

describe("faults, latency and counters", () => {
  it("consumes faults in order for matching routes, with n8n Cloud's 429", async () => {
    const sim = await start(2, {
      workflows: activationFixture,
      faults: [
        { kind: "status", status: 503, route: "GET /workflows", times: 1 },
        { kind: "429", times: 1 },
      ],
    });
    expect((await call(sim, "/workflows/wfPlain")).status).toBe(429); // the 503 waits for its route
    expect((await call(sim, "/workflows")).status).toBe(503);
    expect((await call(sim, "/workflows")).status).toBe(200);

    sim.addFaults({ kind: "429", route: "GET /workflows", times: 1 });
    const limited = await call<ErrorBody>(sim, "/workflows");
    expect(limited).toMatchObject({ status: 429, body: { message: "retry after 1" } });
    expect(limited.headers.get("retry-after")).toBe("1");

    sim.addFaults({ kind: "drop", times: 1 });
    await expect(call(sim, "/workflows")).rejects.toThrow();
    expect((await call(sim, "/workflows")).status).toBe(200);

    expect(sim.counters).toMatchObject({
      requests: 6,
      byRoute: { "GET /workflows": 5, "GET /workflows/:id": 1 },
      status: { "200": 2, "429": 2, "503": 1, drop: 1 },
    });
    sim.resetCounters();
    expect(sim.counters).toEqual({ requests: 0, byRoute: {}, maxConcurrency: 0, status: {} });
  });

  it("applies latency and delay faults, measures peak concurrency and records requests", async () => {
    const sim = await start(1, { latencyMs: 20, recordRequests: true, faults: [{ kind: "delay", ms: 80, times: 1 }] });
    const t0 = performance.now();
    await call(sim, "/workflows");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(95);

    await Promise.all(Array.from({ length: 5 }, () => call(sim, "/workflows?limit=1")));
    expect(sim.counters.maxConcurrency).toBe(5);
    expect(sim.requests).toHaveLength(6);
    expect(sim.requests[1]).toMatchObject({ method: "GET", url: "/api/v1/workflows?limit=1" });
    expect(sim.requests[1]?.headers["x-n8n-api-key"]).toBe(sim.apiKey);
  });

  it("setActive changes state as a person would and rejects unknown ids", async () => {
    const sim = await start(2, { workflows: activationFixture });
    sim.setActive("wfNoTrigger", true); // the UI path has no API checks
    const changed = sim.workflows.find((wf) => wf.id === "wfNoTrigger");
    expect(changed).toMatchObject({ active: true, activeVersionId: expect.any(String) });
    expect(() => sim.setActive("nope", true)).toThrow(/nope/);
    expect(sim.counters.requests).toBe(0);
  });
});
