/**
 * Applying workflow changes against what real n8n versions answer: a proxy's 5xx on the run's first
 * change teaches nothing of the API generation (on n8n 1.x it once sent every later change to 2.x's
 * routes, answered 405), and a 404 is worded as what it may be on 2.x, a key's user who may read a
 * workflow but not publish it, not only a workflow deleted (it once said "workflow no longer exists").
 * A 1.x that answers 2.x's routes with 404 rather than 405 is learned from its own route (it once had
 * every change fail, run after run), while a 2.x's 404 for a workflow gone teaches nothing.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";

const KEY = "n8n-changes-key-0001";

const policy = parsePolicy(
  `version: 1
n8n:
  workflows:
    keepActive: ["id:wf03", "id:wf04"]
    unlisted: deactivate
    listedInactive: publish
`,
  "changes.yaml",
);

/** Two workflows to switch off (wf02, wf07) and two to switch on (wf03, wf04), each sim its own copy. */
const WORLD = () => [workflow("wf02", "Stray", { active: true }), workflow("wf03", "Named A"), workflow("wf04", "Named B"), workflow("wf07", "Stray 2", { active: true })];
/** The changes a sim was sent: those of the first change, made alone, in order; then the others, made at once, sorted. */
const posts = (sim: Awaited<ReturnType<typeof n8nSim>>) => {
  const urls = sim.requests.filter((r) => r.method === "POST").map((r) => r.url);
  return [...urls.slice(0, 2), ...urls.slice(2).sort()];
};

describe("n8n 1.x: a transient 5xx on the run's first change", () => {
  it("does not make Warden send every later change to 2.x's routes (which 1.x answers with 405)", async () => {
    const sim = await n8nSim({
      generation: 1,
      apiKeys: { [KEY]: {} },
      workflows: WORLD(),
      // The proxy in front of n8n answers the very first change with a 502 (a restart, a gateway hiccup).
      faults: [{ kind: "status", status: 502, route: "POST /workflows/:id/unpublish", times: 1 }],
    });
    const n8n = n8nClient(sim, KEY);
    const report = await reconcileWorkflows({ n8n, policy, apply: true });

    // The first change (deactivate wf02) met the 502 and failed: fair, the next run picks it up.
    expect(report.actions.find((a) => a.workflowId === "wf02")?.status).toBe("failed");
    // The other three are ordinary changes n8n 1.x makes on /activate and /deactivate.
    const others = report.actions.filter((a) => a.workflowId !== "wf02").map((a) => `${a.workflowId} ${a.status} ${a.error ?? ""}`.trim());
    expect(others).toEqual(["wf03 done", "wf04 done", "wf07 done"]);
    expect(sim.workflows.filter((wf) => wf.active).map((wf) => wf.id)).toEqual(["wf02", "wf03", "wf04"]);
    // And the report does not call this n8n 1.x a 2.x.
    expect(report.summary.apiGeneration).toBe(1);
  });
});

describe("n8n 1.x that answers 2.x's routes with 404 rather than 405", () => {
  it("learns it is a 1.x from its own route, and makes every change", async () => {
    const sim = await n8nSim({
      generation: 1,
      apiKeys: { [KEY]: {} },
      workflows: WORLD(),
      publishRoutesStatus: 404,
      recordRequests: true,
    });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["wf02 done", "wf03 done", "wf04 done", "wf07 done"]);
    expect(report.summary.apiGeneration).toBe(1);
    // One 2.x route asked, once: the first change's.
    expect(posts(sim)).toEqual(["wf02/unpublish", "wf02/deactivate", "wf03/activate", "wf04/activate", "wf07/deactivate"].map((change) => `/api/v1/workflows/${change}`));
  });

  it("on a 2.x, a workflow gone since it was listed is still reported as gone, and teaches nothing", async () => {
    const sim = await n8nSim({
      generation: 2,
      apiKeys: { [KEY]: {} },
      workflows: WORLD(),
      // Deleted in n8n right after Warden listed it.
      onListPage: (_page, s) => void s.workflows.splice(s.workflows.findIndex((wf) => wf.id === "wf02"), 1),
      recordRequests: true,
    });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["wf02 failed", "wf03 done", "wf04 done", "wf07 done"]);
    expect(report.actions[0]!.error).toMatch(/^n8n answered 404: the workflow was deleted since it was listed/);
    expect(report.summary.apiGeneration).toBe(2);
    expect(posts(sim)).toEqual(["wf02/unpublish", "wf02/deactivate", "wf03/publish", "wf04/publish", "wf07/unpublish"].map((change) => `/api/v1/workflows/${change}`));
  });
});

const PERMISSION_KEY = "n8n-changes-key-0003";
const WORKFLOW = { id: "wf03", name: "Invoices", active: false, activeVersionId: null, isArchived: false, tags: [] };
const PERMISSION = "You do not have permission to publish this workflow. Ask the owner of the workflow to share it with you";

describe("n8n 2.40: a listed workflow the key's user may read but not publish", () => {
  // A 2.x that has dropped 1.x's routes answers the one Warden then asks (setActive) with 405: its 404 stands all the same.
  it.each([404, 405])("is not reported as deleted (1.x's route answered %i)", async (oldRoute) => {
    const n8n = await serve((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: [WORKFLOW], nextCursor: null });
      if (req.method === "GET" && path === "/api/v1/workflows/wf03") return json(res, 200, WORKFLOW);
      if (req.method === "POST" && path === "/api/v1/workflows/wf03/publish") return json(res, 404, { message: PERMISSION });
      if (req.method === "POST" && path === "/api/v1/workflows/wf03/activate") return json(res, oldRoute, { message: oldRoute === 405 ? "POST method not allowed" : "not found" });
      return json(res, 404, { message: "not found" });
    });
    const policy = parsePolicy('version: 1\nn8n:\n  workflows: { keepActive: ["id:wf03"], listedInactive: publish }\n', "changes.yaml");
    const client = n8nClient(n8n, PERMISSION_KEY);
    const report = await reconcileWorkflows({ n8n: client, policy, apply: true });

    const action = report.actions[0]!;
    expect(action.status).toBe("failed");
    // The workflow is there (GET /workflows/wf03 answers 200): "no longer exists" is untrue.
    expect((await client.getWorkflow("wf03")).id).toBe("wf03");
    expect(action.error).not.toBe("workflow no longer exists");
    expect(action.error).toContain("permission");
    expect(report.summary.apiGeneration).toBe(oldRoute === 405 ? 2 : "not checked");
  });
});
