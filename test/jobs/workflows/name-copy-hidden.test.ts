/**
 * An activation only a `name:` selector asks for is made only if no other workflow has the name
 * (name-collisions.ts): a name is anyone's to give. The check counted the workflows the listing showed. But
 * n8n's cursor is an offset: an n8n member who deletes one of their own workflows while the listing is read
 * moves every later one a place back, and the workflow first on the next page is never listed. With the
 * real "Billing sync" there, the member's inactive copy of the name was the only one seen, and was activated
 * (the n8n review). Now such an activation first asks n8n for the name itself.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { N8nSim, SimWorkflow } from "../../../sim/n8n/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";

const KEY = "n8n-name-copy-hidden-key-01";

const policy = parsePolicy(
  `version: 1
n8n:
  workflows:
    keepActive: ["name:Billing sync"]
    unlisted: report
    listedInactive: publish
`,
  "name-copy-hidden.yaml",
);

/** A member's 250 drafts (page one, by id), the real "Billing sync" (active: first on page two), and the member's inactive copy of its name. */
function world(): SimWorkflow[] {
  const drafts = Array.from({ length: 250 }, (_, i) => workflow(`a-draft-${String(i).padStart(4, "0")}`, `Draft ${i}`));
  return [...drafts, workflow("b-real-billing", "Billing sync", { active: true }), workflow("c-copy-billing", "Billing sync")];
}

/** The member deletes a draft of theirs once the listing's first page is sent; `then` runs after it. */
function deletingMidListing(then?: (sim: N8nSim) => void) {
  let done = false;
  return (page: number, sim: N8nSim) => {
    if (page !== 0 || done) return;
    done = true;
    sim.workflows.splice(0, 1);
    then?.(sim);
  };
}

describe("workflows: a copy of a selector's name the listing did not show", () => {
  it("a draft deleted while the listing is read hides the real workflow: its copy is not activated, the report says why", async () => {
    const sim = await n8nSim({ generation: 2, workflows: world(), apiKeys: { [KEY]: {} }, onListPage: deletingMidListing() });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    const copy = report.actions.find((a) => a.workflowId === "c-copy-billing")!;
    // Before: "done", the copy switched on, and no warning.
    expect(copy.status).toBe("reported");
    expect(copy.reason).toContain("1 other workflow by that name found just before the change (b-real-billing), which the listing did not show");
    expect(sim.workflows.find((wf) => wf.id === "c-copy-billing")?.active).toBe(false);
    expect(sim.counters.byRoute["POST /workflows/:id/publish"] ?? 0).toBe(0);
  });

  it("with no copy, the workflow is activated as before: one listing by its name more", async () => {
    const alone = world().filter((wf) => wf.id !== "b-real-billing");
    const sim = await n8nSim({ generation: 2, workflows: alone, apiKeys: { [KEY]: {} }, recordRequests: true });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    expect(report.actions.find((a) => a.workflowId === "c-copy-billing")?.status).toBe("done");
    expect(sim.workflows.find((wf) => wf.id === "c-copy-billing")?.active).toBe(true);
    expect(sim.requests.filter((r) => r.method === "GET" && new URL(r.url, sim.url).searchParams.get("name") === "Billing sync")).toHaveLength(1);
  });

  it("n8n refusing the listing by name: nothing is activated, the report says the copy could not be ruled out", async () => {
    const alone = world().filter((wf) => wf.id !== "b-real-billing");
    // Once the run's listing is read, the next listing (by name) is refused.
    const sim = await n8nSim({ generation: 2, workflows: alone, apiKeys: { [KEY]: {} }, onListPage: (page, s) => page === 1 && s.addFaults({ kind: "status", status: 400, route: "GET /workflows", times: 1 }) });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    const copy = report.actions.find((a) => a.workflowId === "c-copy-billing")!;
    expect(copy.status).toBe("reported");
    expect(copy.reason).toMatch(/n8n could not be asked for other workflows by that name \(.*400.*\): not activated, nothing was sent \(select it by id\)$/);
    expect(sim.workflows.find((wf) => wf.id === "c-copy-billing")?.active).toBe(false);
  });

  it("the read just before refused (a key without workflow:read): the listing by name is asked all the same, and the hidden workflow found", async () => {
    const sim = await n8nSim({ generation: 2, workflows: world(), apiKeys: { [KEY]: {} }, onListPage: deletingMidListing((s) => s.addFaults({ kind: "status", status: 403, route: "GET /workflows/:id", times: 10 })) });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    expect(report.actions.find((a) => a.workflowId === "c-copy-billing")).toMatchObject({ status: "reported", reason: expect.stringContaining("by that name found just before the change (b-real-billing)") });
    expect(sim.workflows.find((wf) => wf.id === "c-copy-billing")?.active).toBe(false);
  });

  it("an archived workflow of the name, retired, does not hold the activation back", async () => {
    const retired = world().map((wf) => (wf.id === "b-real-billing" ? { ...wf, active: false, isArchived: true } : wf));
    const sim = await n8nSim({ generation: 2, workflows: retired, apiKeys: { [KEY]: {} } });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true });
    expect(report.actions.find((a) => a.workflowId === "c-copy-billing")?.status).toBe("done");
  });
});
