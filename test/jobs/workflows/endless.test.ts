/**
 * A workflow listing that does not end: a proxy's, or a hostile server's, answering page after page with
 * a new cursor. The job kept an action for every workflow out of policy and listed on to lib/paging's
 * 100,000 pages, until V8 ended the CLI (256 MB of heap) with no report. Now the listing stops where the
 * guard has tripped whatever follows, or at MAX_WORKFLOWS (no n8n's listing goes that far), and the run
 * ends with its report, having changed nothing; a name longer than n8n allows is cut in it.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";

const at = "2026-01-01T00:00:00.000Z";
/** An n8n that never stops listing: each page 250 new active workflows, tagged `tag` (or not), with a next cursor. */
async function endless(tag?: string) {
  let pages = 0;
  const s = await serve((req, res) => {
    if (req.method !== "GET") return json(res, 500, { message: "no change expected" });
    const n = pages++;
    const data = Array.from({ length: 250 }, (_, i) => ({ id: `w${n}-${i}`, name: `Flow ${n}-${i} ${"x".repeat(i === 0 ? 2_000 : 0)}`, active: true, isArchived: false, tags: tag ? [{ id: "t1", name: tag }] : [], createdAt: at, updatedAt: at }));
    json(res, 200, { data, nextCursor: Buffer.from(JSON.stringify({ limit: 250, offset: (n + 1) * 250 })).toString("base64") });
  });
  return { s, pages: () => pages };
}

describe("a workflow listing that never ends", () => {
  it("stops once the guard has tripped whatever follows: one page read, nothing changed, the report says why", async () => {
    const { s, pages } = await endless();
    const policy = parsePolicy("version: 1\nn8n:\n  workflows: { keepActive: [], unlisted: deactivate }\n  guard: { maxChanges: 100 }\n", "test.yaml");
    const report = await reconcileWorkflows({ n8n: n8nClient(s, "n8n-endless-key-0001"), policy, apply: true });
    expect(pages()).toBe(1);
    expect(report.summary).toMatchObject({ workflows: 250, changes: 250, applied: 0, guard: "tripped", complete: false });
    expect(report.warnings).toEqual([
      "the listing was not read past 250 workflows: more than n8n.guard.maxChanges (100) changes were planned by then, so the guard trips whatever the rest holds",
      "guard: 250 changes planned, more than n8n.guard.maxChanges (100); nothing was changed",
    ]);
    expect(report.actions[0]!.name).toMatch(/^Flow 0-0 x{191}… \(1809 more characters\)$/);
    expect(exitCode(report)).toBe(3);
  });

  it("stops at 100,000 workflows when none needs a change, and changes nothing", { timeout: 60_000 }, async () => {
    const { s, pages } = await endless("production");
    const policy = parsePolicy('version: 1\nn8n:\n  workflows: { keepActive: ["tag:production"], unlisted: deactivate }\n', "test.yaml");
    const report = await reconcileWorkflows({ n8n: n8nClient(s, "n8n-endless-key-0002"), policy, apply: true });
    expect(pages()).toBe(400);
    expect(report.summary).toMatchObject({ workflows: 100_000, changes: 0, applied: 0, complete: false });
    expect(report.warnings).toEqual(["n8n lists more than 100,000 workflows, more than Warden reads: the listing was not read further and nothing was changed (is N8N_URL an n8n?)"]);
    expect(exitCode(report)).toBe(1);
  });
});
