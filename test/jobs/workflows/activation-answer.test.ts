/**
 * n8n answers every activation route (1.x activate/deactivate, 2.x publish/unpublish) with the workflow as it
 * now is: an object with its `id` and `active` (and, from 1.123, `activeVersionId`). An answer that said
 * nothing at all (a 204, `{}`, `null`, a gateway's `{"status":"ok"}`) was taken for a change made: recorded
 * `done`, in the report and the audit trail, exit 0, while the workflow ran on (the n8n review, third pass).
 * No n8n writes such an answer; a proxy or a stub does. lib/n8n/client.ts's `contradiction` refuses it now.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";

const policy = parsePolicy("version: 1\nn8n:\n  workflows:\n    keepActive: []\n    unlisted: deactivate\n", "t.yaml");
const listing = { data: [{ id: "A", name: "Stray", active: true, activeVersionId: "v1", isArchived: false, tags: [] }], nextCursor: null };

describe("an activation answered with no workflow at all", () => {
  for (const [label, answer] of [
    ["204 with no body", (res: Parameters<Parameters<typeof serve>[0]>[1]) => (res.writeHead(204), res.end())],
    ["200 {}", (res: Parameters<Parameters<typeof serve>[0]>[1]) => json(res, 200, {})],
    ["200 null", (res: Parameters<Parameters<typeof serve>[0]>[1]) => json(res, 200, null)],
    ['200 {"status":"ok"}', (res: Parameters<Parameters<typeof serve>[0]>[1]) => json(res, 200, { status: "ok" })],
  ] as const) {
    it(`${label}: is not a change made`, async () => {
      const s = await serve((req, res) => (req.method === "POST" ? answer(res) : json(res, 200, listing)));
      const report = await reconcileWorkflows({ n8n: n8nClient(s, "review-n8n3-key-0000001"), policy, apply: true });
      expect(s.received.filter((r) => r.method === "POST").map((r) => r.url)).toEqual(["/api/v1/workflows/A/unpublish"]);
      expect({ status: report.actions[0]?.status, exit: exitCode(report) }).toEqual({ status: "failed", exit: 1 });
    });
  }
});
