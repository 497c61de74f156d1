/**
 * The simulator publishes as n8n 2.x does (a review's finding, n8n13): WorkflowService.activateWorkflow
 * publishes `options.versionId ?? workflow.versionId`, the latest saved draft, and replaces a version already
 * published; only that same version again changes nothing. It once answered every repeated activation with
 * the workflow unchanged, kinder than n8n, so no test could see Warden replace a version a person published.
 * n8n 1.x's /activate reads no body and leaves an active workflow as it is.
 */
import { describe, expect, it } from "vitest";
import { startN8nSim, type N8nSim, type SimWorkflow } from "../../../sim/n8n/index.ts";
import { afterTest } from "../../support/cleanup.ts";

const at = "2025-01-01T00:00:00.000Z";
const plain: SimWorkflow = { id: "wfPlain", name: "Flow", active: false, isArchived: false, tags: [], hasTrigger: true, createdAt: at, updatedAt: at };

async function start(generation: 1 | 2, seed: SimWorkflow = plain): Promise<N8nSim> {
  return afterTest.add(await startN8nSim({ generation, workflows: [seed], recordRequests: true }));
}

/** POST /workflows/wfPlain/<verb>, with `body` as sent. */
async function post(sim: N8nSim, verb: string, body?: string) {
  const headers = { "X-N8N-API-KEY": sim.apiKey, ...(body !== undefined && { "content-type": "application/json" }) };
  const res = await fetch(`${sim.url}/api/v1/workflows/wfPlain/${verb}`, { method: "POST", headers, body });
  return { status: res.status, body: (await res.json()) as { activeVersionId?: string | null; versionId?: string; message?: string } };
}

describe("n8n 2.x", () => {
  it("publishes the latest saved draft when told no version, even over a version already published", async () => {
    const sim = await start(2);
    const first = sim.workflows[0]!.versionId!;
    expect(await post(sim, "publish")).toMatchObject({ status: 200, body: { activeVersionId: first, versionId: first } });
    const draft = sim.saveDraft("wfPlain");
    expect(sim.workflows[0]).toMatchObject({ activeVersionId: first, versionId: draft });
    // A repeated publish is not harmless: the draft saved since goes live.
    expect(await post(sim, "publish")).toMatchObject({ status: 200, body: { activeVersionId: draft } });
    // Through the deprecated alias too.
    sim.publish("wfPlain", first);
    expect(await post(sim, "activate")).toMatchObject({ status: 200, body: { activeVersionId: draft } });
  });

  it("publishes the version its body names, and leaves that same version live unchanged", async () => {
    const sim = await start(2);
    const reviewed = sim.workflows[0]!.versionId!;
    sim.saveDraft("wfPlain");
    const body = JSON.stringify({ versionId: reviewed });
    expect(await post(sim, "publish", body)).toMatchObject({ status: 200, body: { activeVersionId: reviewed } });
    const { updatedAt } = sim.workflows[0]!;
    expect(await post(sim, "publish", body)).toMatchObject({ status: 200, body: { activeVersionId: reviewed } });
    expect(sim.workflows[0]!.updatedAt).toBe(updatedAt);
    expect(sim.requests.map((r) => r.body)).toEqual([body, body]);
  });

  it("answers a body that is no object, or a versionId that is no text, with 400", async () => {
    const sim = await start(2);
    expect(await post(sim, "publish", "[]")).toMatchObject({ status: 400, body: { message: "request/body must be object" } });
    expect(await post(sim, "publish", '{"versionId":1}')).toMatchObject({ status: 400, body: { message: "request/body/versionId must be string" } });
    expect(sim.workflows[0]!.active).toBe(false);
  });

  it("a person's publish in the UI makes a chosen version live, as the route does", async () => {
    const sim = await start(2, { ...plain, versionId: "v-1" });
    sim.saveDraft("wfPlain");
    sim.publish("wfPlain", "v-1");
    expect(sim.workflows[0]).toMatchObject({ active: true, activeVersionId: "v-1" });
    expect(sim.counters.requests).toBe(0);
  });
});

describe("n8n 1.x", () => {
  it("reads no body, and leaves an active workflow as it is", async () => {
    const sim = await start(1, { ...plain, activeVersionId: null, versionId: "v-1" });
    expect(await post(sim, "activate", JSON.stringify({ versionId: "elsewhere" }))).toMatchObject({ status: 200, body: { activeVersionId: "v-1" } });
    sim.saveDraft("wfPlain");
    expect(await post(sim, "activate")).toMatchObject({ status: 200, body: { activeVersionId: "v-1" } });
  });
});
