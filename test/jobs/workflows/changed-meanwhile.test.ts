/**
 * Warden lists every workflow before it changes any, so on a large n8n minutes pass between a workflow's listing
 * and its activation. The read made just before an activation says what changed since, and nothing is sent:
 * - archived (a review's finding, n8n14): its owner retired it (n8n deactivates it first), and n8n 1.x activated
 *   it all the same; the next run, judging it archived and active, kept it so when an id: selector names it.
 *   (2.40 refuses the activation: a failed change, and the run's exit code 1, for nothing.)
 * - renamed: one the policy names by `name:`, renamed by any user who may edit it to a name the policy does not
 *   name, was activated under the name that no longer described it. The next run judges its new name.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { SimWorkflow } from "../../../sim/n8n/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-archived-meanwhile-key-0014";
const publishing = (selector: string) => parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["${selector}"]\n    listedInactive: publish\n`, "changed-meanwhile.yaml");

const CHANGES: [string, string, (wf: SimWorkflow) => void, RegExp][] = [
  ["archived", "id:wf01", (wf) => void (wf.isArchived = true), /archived when read just before the change/],
  ["renamed", "name:Invoices", (wf) => void (wf.name = "Invoices (copy: untested)"), /renamed when read just before the change \(now "Invoices \(copy: untested\)"\)/],
];

describe("a workflow changed after Warden listed it, before its activation", () => {
  for (const [what, selector, change, reason] of CHANGES) {
    for (const generation of [1, 2] as const) {
      it(`${what}, n8n ${generation}.x: is not activated, and the run says why`, async () => {
        const sim = await n8nSim({ generation, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: [workflow("wf01", "Invoices")], onListPage: (_page, s) => change(s.workflows[0]!) });
        const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: publishing(selector), apply: true }));
        expect(sim.requests.filter((r) => r.method === "POST")).toEqual([]);
        expect(sim.workflows[0]).toMatchObject({ active: false });
        expect(report.actions).toEqual([expect.objectContaining({ type: "activate", status: "reported", reason: expect.stringMatching(reason) })]);
        expect(exitCode(report)).toBe(0);
      });
    }
  }

  it("a name the report cuts or masks (over 200 characters, a token's shape in it), unchanged: activated as before", async () => {
    const long = `Invoices ${"x".repeat(240)} glpat-0123456789abcdefghij`;
    const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: [workflow("wf02", long)] });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: publishing("id:wf02"), apply: true }));
    expect(report.actions).toEqual([expect.objectContaining({ type: "activate", status: "done" })]);
    expect(sim.workflows[0]).toMatchObject({ active: true });
  });
});
