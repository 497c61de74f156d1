/**
 * An archived workflow is never activated, but one that is active runs its triggers all the same: n8n
 * 1.x lets anyone with the API activate an archived workflow. An editor who archived their own unlisted
 * workflow, then switched it on, once escaped `unlisted: deactivate` for good (Warden kept every
 * archived workflow as it was, and reported all in order).
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";

const KEY = "n8n-archived-key-0002";

const policy = parsePolicy(
  `version: 1
n8n:
  workflows:
    keepActive: ["id:wf01"]
    unlisted: deactivate
    listedInactive: publish
`,
  "archived.yaml",
);

describe("n8n 1.x: an editor archives their unlisted workflow, then switches it on through the API", () => {
  it("Warden deactivates it, as it would the same workflow unarchived", async () => {
    const sim = await n8nSim({
      generation: 1,
      apiKeys: { [KEY]: {} },
      workflows: [workflow("wf01", "Approved", { active: true }), workflow("wf66", "Exfiltrate CRM", { isArchived: true })],
    });
    // The editor's own request: n8n 1.x activates an archived workflow.
    const res = await fetch(`${sim.url}/api/v1/workflows/wf66/activate`, { method: "POST", headers: { "X-N8N-API-KEY": KEY } });
    expect(res.status).toBe(200);
    expect(sim.workflows.find((wf) => wf.id === "wf66")?.active).toBe(true);

    const n8n = n8nClient(sim, KEY);
    const report = await reconcileWorkflows({ n8n, policy, apply: true });

    expect(report.actions.map((a) => `${a.type} ${a.workflowId} ${a.status}`)).toEqual(["deactivate wf66 done"]);
    expect(sim.workflows.find((wf) => wf.id === "wf66")?.active).toBe(false);
    expect(exitCode(report)).toBe(0);
  });
});
