/**
 * Workflows n8n lists too large to parse (lib/http/json-fields.ts, lib/jobs/workflows/pages.ts). n8n
 * lists whole workflows, nodes and all (and in 2.x the published version's nodes again); a node's
 * `parameters` is free-form JSON any member may save, up to n8n's 16 MiB a body. Warden parses only the
 * fields it reads of each workflow, so no member's nodes stop a run: one workflow of a million empty
 * arrays made every listing that held it fail, and so every run, governed by nothing. What is still too
 * large (past 64 MiB a page, or a million objects in the fields read) starts the listing again at half the
 * size; n8n's cursor carries its page size (1.85.4 validCursor, 2.41.3 getWorkflows: `limit =
 * decoded.limit ?? limit`), as the server below does, ordering by id as n8n does.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-api-key-oversized-01";
const at = "2026-01-01T00:00:00.000Z";
const policy = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["tag:production"]\n    unlisted: deactivate\n`, "t.yaml");

interface Flow {
  active?: boolean;
  archived?: boolean;
  /** Empty arrays in its nodes' parameters. */
  arrays?: number;
  /** Tags, the first named "production" (default 1): a field Warden reads, each an object. */
  tags?: number;
}

/** Workflow `i` as n8n 2.x sends it, its nodes after the fields Warden reads. */
const workflowJson = (i: number, flow: Flow) =>
  JSON.stringify({
    id: `wf${String(i).padStart(6, "0")}`, name: `Flow ${i}`, active: flow.active ?? true, activeVersionId: flow.active === false ? null : `v-${i}`, isArchived: flow.archived ?? false, createdAt: at, updatedAt: at,
  }).slice(0, -1) + `,"tags":[${flow.tags === 0 ? "" : `{"name":"production"}${',{"name":"x"}'.repeat((flow.tags ?? 1) - 1)}`}],"nodes":[{"name":"Edit Fields","type":"n8n-nodes-base.set","parameters":{"values":[${Array<string>(flow.arrays ?? 0).fill("[]").join(",")}]}}],"connections":{}}`;

/** n8n's listing of `flows`, a workflow's read and its unpublish route; the cursor is base64 {limit, offset} and its limit wins, as n8n's does. */
async function n8nListing(flows: Flow[]) {
  const limits: number[] = [];
  const server = await serve((req, res) => {
    const url = new URL(req.url!, "http://x");
    const change = /^\/api\/v1\/workflows\/wf(\d+)\/unpublish$/.exec(url.pathname);
    const read = /^\/api\/v1\/workflows\/wf(\d+)$/.exec(url.pathname);
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    if (req.method === "POST" && change) {
      const i = Number(change[1]);
      flows[i]!.active = false;
      return res.end(workflowJson(i, flows[i]!));
    }
    if (read) return res.end(workflowJson(Number(read[1]), flows[Number(read[1])]!));
    const cursor = url.searchParams.get("cursor");
    const { limit, offset } = cursor ? (JSON.parse(Buffer.from(cursor, "base64").toString()) as { limit: number; offset: number }) : { limit: Number(url.searchParams.get("limit")), offset: 0 };
    limits.push(limit);
    const end = Math.min(flows.length, offset + limit);
    const next = end < flows.length ? Buffer.from(JSON.stringify({ limit, offset: end })).toString("base64") : null;
    res.end(`{"data":[${flows.slice(offset, end).map((flow, k) => workflowJson(offset + k, flow)).join(",")}],"nextCursor":${JSON.stringify(next)}}`);
  });
  return { server, limits };
}

describe("n8n: workflows larger than Warden parses of one answer", () => {
  it("a member's workflow of a million arrays stops nothing: its nodes are not parsed, and a stray as large is switched off", async () => {
    const { server, limits } = await n8nListing([
      {},
      // A member's own workflow, archived even (n8n lists those too): some 3 MB, well under n8n's 16 MiB a save.
      { arrays: 1_000_001, archived: true, active: false },
      // A stray as large: the answer to its unpublish carries its nodes too.
      { arrays: 1_000_001, tags: 0 },
    ]);
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy, apply: true }));
    expect(report.actions.map((a) => `${a.workflowId} ${a.type} ${a.status}`)).toEqual(["wf000002 deactivate done"]);
    expect(report.summary).toMatchObject({ workflows: 3, complete: true });
    expect(report.warnings).toEqual([]);
    // One listing of one page: nothing was asked for again.
    expect(limits).toEqual([250]);
  });

  it("a page too large in the fields read is asked for again in smaller pages: the listing completes, every workflow judged once", async () => {
    // 250 workflows of 4,100 tags each: over a million objects.
    const { server, limits } = await n8nListing(Array.from({ length: 300 }, () => ({ tags: 4_100 })));
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy }));
    expect(report.summary).toMatchObject({ workflows: 300, active: 300, complete: true });
    expect(report.actions).toEqual([]);
    // 250 too many objects; then a new listing of 125 a page.
    expect(limits).toEqual([250, 125, 125, 125]);
  });

  // A hostile review of the change: its own re-reads were counted as repeats n8n made, and every such run warned
  // that "workflows created or deleted while it was listed shift its pages".
  it("does not report its own re-reads as n8n listing workflows more than once", async () => {
    // The first page of 250 is small; the second too large at 250, not at 125.
    const { server, limits } = await n8nListing(Array.from({ length: 500 }, (_, i) => ({ tags: i >= 250 ? 4_100 : 1 })));
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy }));
    expect(limits.slice(0, 3)).toEqual([250, 250, 125]);
    expect(report.summary).toMatchObject({ workflows: 500, complete: true });
    expect(report.warnings.filter((w) => /more than once/.test(w))).toEqual([]);
  });

  it("one workflow too large alone in the fields read still ends the run, with that answer's error", async () => {
    const { server } = await n8nListing([{}, { tags: 1_000_001 }, {}]);
    await expect(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy })).rejects.toThrow(/more than 1,000,000 objects and arrays, more than Warden parses of one answer/);
  });
});
