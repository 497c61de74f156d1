/**
 * A review's finding (n8n14). The listing leaves pinned data out (`excludePinnedData`), but the read made just
 * before each activation, and the read-back after a lost answer, fetched the whole workflow, pinned data and
 * all: sample executions pinned in the editor, often real records, read for nothing. n8n declares the
 * parameter on GET /workflows/{id} too, from the same version (n8n-io/n8n#12261). A workflow whose pinned data
 * took that read past what Warden reads of one answer lost the read's protection: a version its owner published
 * meanwhile was replaced by the latest draft (n8n 2.x). An n8n that refuses the parameter (1.0–1.72) is read without it, as is one not listed first.
 */
import { describe, expect, it } from "vitest";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { reconcileWorkflows } from "../../lib/jobs/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { json, serve } from "../support/server.ts";

const KEY = "n8n-pinned-read-key-00014";
const policy = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["id:wfPin"]\n    listedInactive: publish\n`, "pinned.yaml");
/** What Warden reads of one answer, scaled down (64 MiB in production) so that the test stays small. */
const client = (url: string) => new N8nClient({ url, apiKey: KEY, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 }, transport: { maxBodyBytes: 256 * 1024 } });

describe("reading one workflow leaves its pinned data out", () => {
  it("n8n 2.x: a workflow published meanwhile, with much pinned data, keeps the version its owner published", async () => {
    const state = { id: "wfPin", name: "Invoices", versionId: "draft-3", activeVersionId: null as string | null };
    const pinData = { "Edit Fields": Array.from({ length: 10_000 }, (_, i) => ({ json: { customer: `customer-${i}@example.com`, amount: i } })) };
    const served = (pinned: boolean) => ({ ...state, active: state.activeVersionId !== null, isArchived: false, tags: [], nodes: [], ...(pinned ? { pinData } : {}) });
    const s = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      const pinned = url.searchParams.get("excludePinnedData") !== "true";
      if (req.method === "GET" && url.pathname === "/api/v1/workflows") {
        json(res, 200, { data: [served(pinned)], nextCursor: null });
        state.activeVersionId = "v2"; // its owner publishes the version they reviewed
        return;
      }
      if (req.method === "GET" && url.pathname === `/api/v1/workflows/${state.id}`) return json(res, 200, served(pinned));
      if (req.method === "POST" && url.pathname === `/api/v1/workflows/${state.id}/publish`) {
        state.activeVersionId = (JSON.parse(req.body || "{}") as { versionId?: string }).versionId ?? state.versionId;
        return json(res, 200, served(false));
      }
      return json(res, 404, { message: "not found" });
    });
    const report = await reconcileWorkflows({ n8n: client(s.url), policy, apply: true });
    expect(state.activeVersionId).toBe("v2");
    expect(s.received.filter((r) => r.method === "POST")).toEqual([]);
    expect(report.actions.map((a) => a.status)).toEqual(["done"]);
    const reads = s.received.filter((r) => r.method === "GET" && r.url.startsWith(`/api/v1/workflows/${state.id}`));
    expect(reads.map((r) => new URL(r.url, "http://x").searchParams.get("excludePinnedData"))).toEqual(["true"]);
  });

  it("an n8n that refuses the parameter (before 1.73) is read without it, and still activates", async () => {
    const wf = { id: "wfPin", name: "Invoices", active: false, isArchived: false, tags: [] as unknown[] };
    const s = await serve((req, res) => {
      const url = new URL(req.url, "http://x");
      if (url.searchParams.has("excludePinnedData")) return json(res, 400, { message: "Unknown query parameter 'excludePinnedData'" });
      if (req.method === "GET" && url.pathname === "/api/v1/workflows") return json(res, 200, { data: [wf], nextCursor: null });
      if (req.method === "GET" && url.pathname === "/api/v1/workflows/wfPin") return json(res, 200, wf);
      if (req.method === "POST" && url.pathname === "/api/v1/workflows/wfPin/publish") return json(res, 405, { message: "method not allowed" });
      if (req.method === "POST" && url.pathname === "/api/v1/workflows/wfPin/activate") return json(res, 200, { ...wf, active: true });
      return json(res, 404, { message: "not found" });
    });
    const n8n = client(s.url);
    const report = await reconcileWorkflows({ n8n, policy, apply: true });
    expect(report.actions.map((a) => a.status)).toEqual(["done"]);
    // Asked once, by the listing; the read is made without it.
    expect(s.received.filter((r) => r.url.includes("excludePinnedData")).map((r) => new URL(r.url, "http://x").pathname)).toEqual(["/api/v1/workflows"]);
    // A client that has not listed yet does not send it: one read, answered.
    const before = s.received.length;
    await expect(client(s.url).getWorkflow("wfPin")).resolves.toMatchObject({ id: "wfPin" });
    expect(s.received.slice(before).map((r) => r.url)).toEqual(["/api/v1/workflows/wfPin"]);
  });
});
