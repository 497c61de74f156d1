/**
 * A review's finding (n8n14). The listing leaves pinned data out (`excludePinnedData`), but the read made just
 * before each activation, and the read-back after a lost answer, fetched the whole workflow, pinned data and
 * all: sample executions pinned in the editor, often real records, read for nothing. n8n declares the
 * parameter on GET /workflows/{id} too, from the same version (n8n-io/n8n#12261). A workflow whose pinned data
 * took that read past what Warden reads of one answer lost the read's protection: a version its owner published
 * meanwhile was replaced by the latest draft (n8n 2.x). An n8n that refuses the parameter (1.0–1.72) is read without it, as is one not listed first.
 * Against the n8n simulator, whose single-workflow read declares the parameter as its listing does.
 */
import { describe, expect, it } from "vitest";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { reconcileWorkflows } from "../../lib/jobs/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { n8nSim, workflow } from "../support/n8n-world.ts";

const KEY = "n8n-pinned-read-key-00014";
const policy = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["id:wfPin"]\n    listedInactive: publish\n`, "pinned.yaml");
/** What Warden reads of one answer, scaled down (64 MiB in production) so that the test stays small. */
const client = (url: string) => new N8nClient({ url, apiKey: KEY, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 }, transport: { maxBodyBytes: 256 * 1024 } });
/** The excludePinnedData each request to `path` carried (null: none). */
const excluding = (requests: { method: string; url: string }[], path: string) => requests.filter((r) => r.method === "GET" && new URL(r.url, "http://x").pathname === path).map((r) => new URL(r.url, "http://x").searchParams.get("excludePinnedData"));

describe("reading one workflow leaves its pinned data out", () => {
  it("n8n 2.x: a workflow published meanwhile, with much pinned data, keeps the version its owner published", async () => {
    // 10,000 pinned records: some 600 KB, past what the client reads of one answer.
    const sim = await n8nSim({
      generation: 2,
      apiKeys: { [KEY]: {} },
      recordRequests: true,
      workflows: [workflow("wfPin", "Invoices", { versionId: "v2", pinnedRecords: 10_000 })],
      // Once listed, its owner saves a draft, then publishes the version they reviewed.
      onListPage: (_page, s) => {
        s.saveDraft("wfPin");
        s.publish("wfPin", "v2");
      },
    });
    const report = await reconcileWorkflows({ n8n: client(sim.url), policy, apply: true });
    expect(sim.workflows[0]).toMatchObject({ active: true, activeVersionId: "v2" });
    expect(sim.requests.filter((r) => r.method === "POST")).toEqual([]);
    expect(report.actions.map((a) => a.status)).toEqual(["done"]);
    expect(excluding(sim.requests, "/api/v1/workflows/wfPin")).toEqual(["true"]);
  });

  it("an n8n that refuses the parameter (before 1.73) is read without it, and still activates", async () => {
    const sim = await n8nSim({ generation: 1, apiKeys: { [KEY]: {} }, recordRequests: true, pinnedDataParam: false, workflows: [workflow("wfPin", "Invoices")] });
    const report = await reconcileWorkflows({ n8n: client(sim.url), policy, apply: true });
    expect(report.actions.map((a) => a.status)).toEqual(["done"]);
    expect(sim.workflows[0]).toMatchObject({ active: true });
    // Asked once, by the listing (refused, and listed again without it); the read is made without it.
    expect(excluding(sim.requests, "/api/v1/workflows")).toEqual(["true", null]);
    expect(excluding(sim.requests, "/api/v1/workflows/wfPin")).toEqual([null]);
    // A client that has not listed yet does not send it: one read, answered.
    const before = sim.requests.length;
    await expect(client(sim.url).getWorkflow("wfPin")).resolves.toMatchObject({ id: "wfPin" });
    expect(sim.requests.slice(before).map((r) => r.url)).toEqual(["/api/v1/workflows/wfPin"]);
  });
});
