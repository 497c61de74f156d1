/**
 * A review's finding (n8n14). A change refused with 400 or 409 is reported in n8n's own words (a workflow without
 * a trigger, a webhook path taken). A proxy in front of n8n answers 400 too (nginx's "Request Header Or Cookie Too
 * Large", a WAF's block page), with an HTML page: the report then said only "an HTML page, 0.2 kB", with no status
 * and nothing of who answered, for a change taken as refused for good (the next run's guard does not count it).
 */
import { expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";

const policy = parsePolicy("version: 1\nn8n:\n  workflows: { keepActive: [], unlisted: deactivate }\n", "t.yaml");

it("a proxy's HTML 400 to a change is reported with its status and request, not as n8n's words", async () => {
  const s = await serve((req, res) => {
    if (req.method === "POST") {
      res.writeHead(400, { "content-type": "text/html" });
      return res.end("<html><head><title>400 Bad Request</title></head><body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>");
    }
    json(res, 200, { data: [{ id: "A", name: "Stray", active: true, activeVersionId: "v1", isArchived: false, tags: [] }], nextCursor: null });
  });
  const report = await reconcileWorkflows({ n8n: n8nClient(s, "n8n-html-refusal-key-0014"), policy, apply: true });
  expect(report.actions.map((a) => a.status)).toEqual(["failed"]);
  expect(report.actions[0]!.error).toMatch(/^POST \/api\/v1\/workflows\/A\/unpublish answered 400/);
  expect(report.actions[0]!.error).not.toMatch(/<|nginx/);
});
