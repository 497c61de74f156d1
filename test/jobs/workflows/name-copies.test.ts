/**
 * Any n8n member may give a workflow of theirs the name a `name:` selector names. Copies of that name are, by
 * design, never activated (name-collisions.ts reports each such activation), so they count against no guard.
 * But while the listing was read, every one of them was counted as a planned change towards the early stop
 * ("past the guard nothing will be changed"): with more copies than n8n.guard.maxChanges on an early page,
 * the listing stopped there, on every run, changing nothing, while the guard itself never tripped; whatever
 * was active and unlisted on a later page (the member's own workflow) stayed active for good.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { SimWorkflow } from "../../../sim/n8n/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";

const KEY = "n8n-name-copies-key-0001";

const policy = parsePolicy(
  `version: 1
n8n:
  workflows:
    keepActive: ["name:Billing sync", "id:real0001"]
    unlisted: deactivate
    listedInactive: publish
  guard:
    maxChanges: 10
`,
  "name-copies.yaml",
);

function world(): SimWorkflow[] {
  // 11 inactive copies named "Billing sync" (ids sort first: page one), 300 inactive unlisted workflows, and the
  // member's own active, unlisted workflow on the second page.
  const copies = Array.from({ length: 11 }, (_, i) => workflow(`a-copy-${String(i).padStart(3, "0")}`, "Billing sync"));
  const filler = Array.from({ length: 300 }, (_, i) => workflow(`m-filler-${String(i).padStart(4, "0")}`, `Draft ${i}`));
  return [...copies, ...filler, workflow("real0001", "Billing (real)", { active: true }), workflow("z-stray-0001", "Crypto miner", { active: true })];
}

describe("workflows: copies of a selector's name", () => {
  it("copies that are never activated do not stop the listing: the unlisted active workflow is switched off", async () => {
    const sim = await n8nSim({ generation: 2, workflows: world(), apiKeys: { [KEY]: {} }, recordRequests: true });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    // The copies are only reported (a name is anyone's to give), so the guard holds and the run is whole.
    expect(report.actions.filter((a) => a.type === "activate").every((a) => a.status === "reported")).toBe(true);
    expect(report.summary).toMatchObject({ guard: "ok", complete: true });
    expect(report.actions.find((a) => a.workflowId === "z-stray-0001")?.status).toBe("done");
    expect(sim.workflows.find((wf) => wf.id === "z-stray-0001")?.active).toBe(false);
    expect(exitCode(report)).toBe(0);
  });

  it("a run never says the guard trips while its summary says the guard held", async () => {
    const sim = await n8nSim({ generation: 2, workflows: world(), apiKeys: { [KEY]: {} } });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: false });
    const saysTrips = report.warnings.some((w) => w.includes("so the guard trips whatever the rest holds"));
    expect(saysTrips && report.summary.guard === "ok").toBe(false);
  });
});
