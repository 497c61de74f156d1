/**
 * A hostile review's finding (lib/policy/workflows.ts; n8n 1.9x+ and 2.x): a workflow the policy names by `id:` that is archived makes that selector
 * "match no workflow", and an unmatched selector holds back every deactivation of the run. An id cannot
 * be a typo once n8n lists a workflow with exactly that id, and nothing else can answer to it, so there is
 * nothing the hold protects: it only hands anyone who may archive one listed workflow a switch that
 * leaves every unlisted active workflow of the instance running, run after run.
 *
 * Grounding: archiving is an ordinary editor's act and leaves the workflow listed, inactive, with
 * `isArchived: true` (n8n 1.123.81 dist/workflows/workflow.service.js `archive`: needs workflow:delete on
 * it, deactivates it, sets isArchived; 2.41.3 POST /workflows/:id/archive in
 * dist/public-api/v1/controllers/workflows.public.controller.js; listings keep archived workflows:
 * docs/api-contract.md). On 1.x
 * an archived workflow can also be activated again through the API (1.123.81 `activateWorkflow` does not
 * look at isArchived), which docs/policy.md says an `id:` selector keeps.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";

const KEY = "review-n8n-key-archived-01";

const policy = parsePolicy(
  `version: 1
n8n:
  workflows:
    keepActive: ["id:wf01", "id:wf02"]
    unlisted: deactivate
    listedInactive: activate
`,
  "warden.yaml",
);

describe.each([1, 2] as const)("n8n %i.x: an editor archives one of the workflows the policy names by id", (generation) => {
  it("an unlisted active workflow is still switched off", async () => {
    const sim = await n8nSim({
      generation,
      apiKeys: { [KEY]: {} },
      workflows: [
        // Archived by its editor: n8n switched it off and keeps listing it.
        workflow("wf01", "Nightly backup", { isArchived: true }),
        workflow("wf02", "Billing sync", { active: true }),
        workflow("wf09", "Exfiltrate CRM", { active: true }),
      ],
    });

    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });

    expect(report.actions.map((a) => `${a.type} ${a.workflowId} ${a.status}`)).toEqual(["deactivate wf09 done"]);
    expect(sim.workflows.find((wf) => wf.id === "wf09")?.active).toBe(false);
  });
});

describe("n8n 1.x: an archived workflow the policy keeps active by id, as docs/policy.md allows", () => {
  it("keeping it does not stop every other unlisted workflow from being switched off", async () => {
    const sim = await n8nSim({
      generation: 1,
      apiKeys: { [KEY]: {} },
      workflows: [
        workflow("wf01", "Nightly backup", { isArchived: true, active: true }),
        workflow("wf02", "Billing sync", { active: true }),
        workflow("wf09", "Exfiltrate CRM", { active: true }),
      ],
    });

    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });

    expect(report.actions.map((a) => `${a.type} ${a.workflowId} ${a.status}`)).toEqual(["deactivate wf09 done"]);
    expect(sim.workflows.filter((wf) => wf.active).map((wf) => wf.id)).toEqual(["wf01", "wf02"]);
  });
});
