/**
 * `excludePinnedData` on GET /workflows (lib/n8n/client.ts). n8n declares it from 1.73 (n8n-io/n8n#12261);
 * an older 1.x refuses it, as its OpenAPI layer refuses every query parameter its spec does not
 * declare: 400 "Unknown query parameter 'excludePinnedData'". Warden sent it on every page, so every
 * workflows run failed on its first request against n8n 1.0–1.72. Now a listing so refused lists
 * again without it, and the client remembers.
 */
import { describe, expect, it } from "vitest";
import { generateWorkflows } from "../../sim/n8n/index.ts";
import { n8nClient, n8nSim } from "../support/n8n-world.ts";

const sent = (urls: string[]) => urls.map((url) => new URL(url, "http://n8n").searchParams.has("excludePinnedData"));

describe("an n8n that does not know excludePinnedData", () => {
  it("lists every workflow without it, asking once", async () => {
    const sim = await n8nSim({ generation: 1, pinnedDataParam: false, workflows: generateWorkflows({ count: 30, seed: 3 }), recordRequests: true });
    const client = n8nClient(sim, sim.apiKey);
    const all = [];
    for await (const workflow of client.listWorkflows({ limit: 10 })) all.push(workflow.id);
    expect(all).toHaveLength(30);
    expect(sent(sim.requests.map((r) => r.url))).toEqual([true, false, false, false]);
    // A later listing of the same client does not ask again.
    for await (const _ of client.listWorkflows({ limit: 10, active: true })) void _;
    expect(sent(sim.requests.map((r) => r.url)).slice(4)).not.toContain(true);
  });

  it("an n8n that knows it gets it on every page", async () => {
    const sim = await n8nSim({ generation: 1, workflows: generateWorkflows({ count: 30, seed: 3 }), recordRequests: true });
    for await (const _ of n8nClient(sim, sim.apiKey).listWorkflows({ limit: 10 })) void _;
    expect(sent(sim.requests.map((r) => r.url))).toEqual([true, true, true]);
  });
});
