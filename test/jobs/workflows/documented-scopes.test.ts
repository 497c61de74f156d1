/**
 * A review's finding (n8n13): docs/cli.md (N8N_API_KEY) and `warden workflows --help` named the scopes an n8n
 * 2.x key needs as workflow:list, workflow:activate and workflow:deactivate. A change whose answer was lost is
 * read back with GET /workflows/:id (lib/jobs/workflows/apply.ts readBack), which n8n 2.x guards with
 * workflow:read (apiKeyHasScope('workflow:read') in packages/cli/src/public-api/v1/handlers/workflows/
 * workflows.handler.ts): with the key the docs prescribed the read back was always refused (403), so a change
 * n8n made was never confirmed, reported failed ("may or may not have been made"), and the run exited 1.
 * The scopes are read from docs/cli.md, so the test follows what it tells the operator.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";

const KEY = "n8n-documented-scopes-key-0002";
/** The scopes docs/cli.md tells the operator to give the key. */
const DOCUMENTED = /N8N_API_KEY=.*; scopes (.+)$/m.exec(readFileSync(new URL("../../../docs/cli.md", import.meta.url), "utf8"))?.[1]?.split(", ") ?? [];

it("docs/cli.md names the scopes of an n8n key", () => {
  expect(DOCUMENTED).toEqual(expect.arrayContaining(["workflow:list", "workflow:read"]));
});

it("with the scopes the docs prescribe, a deactivation n8n made whose answer a proxy lost is confirmed by the read back", async () => {
  const wf = { id: "wfLost0000000001", name: "Stray", active: true, activeVersionId: "v1" as string | null, isArchived: false, tags: [] };
  const s = await serve((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const scope = req.method === "GET" ? (path === "/api/v1/workflows" ? "workflow:list" : "workflow:read") : path.endsWith("publish") && !path.endsWith("unpublish") ? "workflow:activate" : "workflow:deactivate";
    // n8n 2.x: the key's scopes are checked before anything else (apiKeyHasScope), 403 {"message":"Forbidden"}.
    if (!DOCUMENTED.includes(scope)) return json(res, 403, { message: "Forbidden" });
    if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: [wf], nextCursor: null });
    if (req.method === "GET" && path === `/api/v1/workflows/${wf.id}`) return json(res, 200, wf);
    if (req.method === "POST" && path === `/api/v1/workflows/${wf.id}/unpublish`) {
      // n8n made the change; the gateway in front of it lost the answer.
      Object.assign(wf, { active: false, activeVersionId: null });
      return json(res, 502, { message: "Bad Gateway" });
    }
    return json(res, 404, { message: "not found" });
  });
  const policy = parsePolicy("version: 1\nn8n:\n  workflows:\n    keepActive: []\n    unlisted: deactivate\n", "lost.yaml");
  const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy, apply: true });

  expect(wf.active).toBe(false);
  expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual([`${wf.id} done`]);
  expect(exitCode(report)).toBe(0);
});

it("with the scopes the docs prescribe, an activation reads its workflow first and names the version read", async () => {
  const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: { scopes: DOCUMENTED } }, recordRequests: true, workflows: [workflow("wf01", "Invoices", { versionId: "v-1" })] });
  const policy = parsePolicy('version: 1\nn8n:\n  workflows:\n    keepActive: ["id:wf01"]\n    listedInactive: publish\n', "read.yaml");
  const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
  expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["wf01 done"]);
  expect(sim.counters.status["403"]).toBeUndefined();
  expect(sim.requests.map((r) => `${r.method} ${new URL(r.url, sim.url).pathname} ${r.body}`).slice(1)).toEqual(["GET /api/v1/workflows/wf01 ", 'POST /api/v1/workflows/wf01/publish {"versionId":"v-1"}']);
});
