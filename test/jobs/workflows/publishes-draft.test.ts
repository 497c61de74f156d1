/**
 * A hostile review's finding (lib/policy/workflows.ts). On n8n 2.x "activate" is "publish", and a publish
 * makes the workflow's latest saved version live: under `listedInactive: activate`, Warden's key (an
 * owner's) published whatever was last saved, by anyone who may edit the workflow, including a project
 * editor n8n itself forbids to publish (2.41.3 workflow.service.js `activateWorkflow`: `versionIdToActivate
 * = options?.versionId ?? workflow.versionId`, and a ForbiddenError for an editor publishing a version that
 * is not the active one). Where n8n keeps versions (`activeVersionId`), `activate` now reports such a
 * workflow; `publish` says in as many words that the latest saved version may go live.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-api-key-publish-0001";
const policy = (listedInactive: string) => parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["id:wf01"]\n    unlisted: report\n    listedInactive: ${listedInactive}\n`, "t.yaml");
const sent = (sim: Awaited<ReturnType<typeof n8nSim>>) => sim.requests.filter((r) => r.method === "POST").map((r) => new URL(r.url, sim.url).pathname);

describe("an inactive workflow the policy keeps active", () => {
  it("n8n 2.x, listedInactive: activate: not published (its latest saved version is anyone's who may edit it), reported with why", async () => {
    const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: [workflow("wf01", "Billing sync")] });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: policy("activate"), apply: true }));
    expect(report.actions).toEqual([
      expect.objectContaining({ type: "activate", workflowId: "wf01", status: "reported", reason: expect.stringMatching(/; not published: n8n would make its latest saved version live, which any editor of it may have written \(publish it in n8n, or set n8n\.workflows\.listedInactive: publish/) }),
    ]);
    expect(sent(sim)).toEqual([]);
    expect(sim.workflows[0]!.active).toBe(false);
  });

  it("n8n 2.x, listedInactive: publish: published", async () => {
    const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: [workflow("wf01", "Billing sync")] });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: policy("publish"), apply: true }));
    expect(report.actions.map((a) => `${a.type} ${a.workflowId} ${a.status}`)).toEqual(["activate wf01 done"]);
    expect(sent(sim)).toEqual(["/api/v1/workflows/wf01/publish"]);
  });

  it("n8n 1.x without versions, listedInactive: activate: activated, as anyone who may edit it could", async () => {
    const sim = await n8nSim({ generation: 1, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: [workflow("wf01", "Billing sync")] });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: policy("activate"), apply: true }));
    expect(report.actions.map((a) => `${a.type} ${a.workflowId} ${a.status}`)).toEqual(["activate wf01 done"]);
    expect(sim.workflows[0]!.active).toBe(true);
  });
});
