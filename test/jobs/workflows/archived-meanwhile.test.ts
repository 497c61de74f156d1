/**
 * A review's finding (n8n14). Warden lists every workflow before it changes any, so on a large n8n minutes pass
 * between a workflow's listing and its activation. A workflow its owner archived meanwhile (retired: n8n
 * deactivates it first) was activated all the same: n8n 1.x activates an archived workflow, and the next run,
 * which judges it archived and active, keeps it so when an id: selector names it. What its owner archived ran
 * again, for good. (2.40 refuses the activation: a failed change, and the run's exit code 1, for nothing.)
 * The read made just before an activation now also says whether the workflow was archived since.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-archived-meanwhile-key-0014";
const policy = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["id:wf01"]\n    listedInactive: publish\n`, "archived-meanwhile.yaml");

describe("a workflow archived after Warden listed it, before its activation", () => {
  for (const generation of [1, 2] as const) {
    it(`n8n ${generation}.x: is not activated, and the run says why`, async () => {
      const sim = await n8nSim({
        generation,
        apiKeys: { [KEY]: {} },
        recordRequests: true,
        workflows: [workflow("wf01", "Invoices")],
        // Once listed, its owner archives it in n8n's UI.
        onListPage: (_page, s) => {
          s.workflows[0]!.isArchived = true;
        },
      });
      const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }));
      expect(sim.requests.filter((r) => r.method === "POST")).toEqual([]);
      expect(sim.workflows[0]).toMatchObject({ isArchived: true, active: false });
      expect(report.actions).toEqual([expect.objectContaining({ type: "activate", status: "reported", reason: expect.stringMatching(/archived when read just before the change/) })]);
      expect(exitCode(report)).toBe(0);
    });
  }
});
