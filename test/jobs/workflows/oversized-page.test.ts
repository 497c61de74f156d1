/**
 * A hostile review's finding (lib/jobs/workflows/pages.ts). n8n lists whole workflows, nodes and all (and
 * in 2.x the published version's nodes again): a page of 250 can hold more than Warden reads or parses of
 * one answer (64 MiB; a million objects and arrays), and Warden only ever asked for 250, so such an
 * instance failed on that page in every run, governed by nothing. A page too large now starts the listing
 * again at half the size; n8n's cursor carries its page size (1.85.4 validCursor, 2.41.3 getWorkflows:
 * `limit = decoded.limit ?? limit`), as the server below does.
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

/** A workflow whose nodes hold `arrays` empty arrays: 250 of 4,100 make a page of over a million, in a few megabytes. */
const workflowJson = (i: number, arrays: number) =>
  JSON.stringify({ id: `wf${String(i).padStart(6, "0")}`, name: `Flow ${i}`, active: true, activeVersionId: `v-${i}`, isArchived: false, createdAt: at, updatedAt: at, tags: [{ id: "t1", name: "production" }] }).slice(0, -1) +
  `,"nodes":[${Array<string>(arrays).fill("[]").join(",")}]}`;

/** n8n's listing of `total` workflows; the cursor is base64 {limit, offset} and its limit wins, as n8n's does. */
async function n8nListing(total: number, arrays: (i: number) => number) {
  const limits: number[] = [];
  const server = await serve((req, res) => {
    const q = new URL(req.url!, "http://x").searchParams;
    const cursor = q.get("cursor");
    const { limit, offset } = cursor ? (JSON.parse(Buffer.from(cursor, "base64").toString()) as { limit: number; offset: number }) : { limit: Number(q.get("limit")), offset: 0 };
    limits.push(limit);
    const end = Math.min(total, offset + limit);
    const next = end < total ? Buffer.from(JSON.stringify({ limit, offset: end })).toString("base64") : null;
    const items = Array.from({ length: end - offset }, (_, k) => workflowJson(offset + k, arrays(offset + k)));
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(`{"data":[${items.join(",")}],"nextCursor":${JSON.stringify(next)}}`);
  });
  return { server, limits };
}

describe("n8n: a page of workflows larger than Warden parses of one answer", () => {
  it("is asked for again in smaller pages: the listing completes, every workflow judged once", async () => {
    const { server, limits } = await n8nListing(300, () => 4_100);
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy }));
    expect(report.summary).toMatchObject({ workflows: 300, active: 300, complete: true });
    expect(report.actions).toEqual([]);
    // 250 too many objects; then a new listing of 125 a page.
    expect(limits).toEqual([250, 125, 125, 125]);
  });

  // A hostile review of the change: its own re-reads were counted as repeats n8n made, and every such run warned
  // that "workflows created or deleted while it was listed shift its pages".
  it("does not report its own re-reads as n8n listing workflows more than once", async () => {
    // The first page of 250 is small; the second holds large workflows, too many at 250, not at 125.
    const { server, limits } = await n8nListing(500, (i) => (i >= 250 ? 4_100 : 1));
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy }));
    expect(limits.slice(0, 3)).toEqual([250, 250, 125]);
    expect(report.summary).toMatchObject({ workflows: 500, complete: true });
    expect(report.warnings.filter((w) => /more than once/.test(w))).toEqual([]);
  });

  it("one workflow too large alone still ends the run, with that answer's error", async () => {
    const { server } = await n8nListing(3, (i) => (i === 1 ? 1_000_001 : 1));
    await expect(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy })).rejects.toThrow(/more than 1,000,000 objects and arrays, more than Warden parses of one answer/);
  });
});
