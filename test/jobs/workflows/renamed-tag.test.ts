/**
 * `tag:` selectors are keyed on a tag's *name*, and n8n's workflow tags are instance-wide: every member
 * may rename them (n8n's GLOBAL_MEMBER_SCOPES hold tag:update), which changes no workflow and needs no
 * right on any. A selector that matches nothing after such a rename must not have every workflow it
 * kept switched off.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { N8nSim } from "../../../sim/n8n/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-test-key-tags-0002";
const production = { id: "tProd", name: "production" };

const policy = parsePolicy(
  `version: 1
n8n:
  workflows:
    keepActive: ["tag:production"]
    unlisted: deactivate
    listedInactive: publish
  guard:
    maxChanges: 10
`,
  "warden.yaml",
);

/** What any member does in n8n's tag manager: the one tag renamed, on every workflow that carries it. */
function renameTag(sim: N8nSim, id: string, name: string): void {
  for (const wf of sim.workflows) wf.tags = wf.tags.map((tag) => (tag.id === id ? { ...tag, name } : tag));
}

const active = (sim: N8nSim) => sim.workflows.filter((wf) => wf.active).map((wf) => wf.id);

describe.each([1, 2] as const)("n8n %i.x: a member renames the tag the policy keeps workflows by", (generation) => {
  it("Warden switches off none of the workflows the policy kept by that tag, and says why", async () => {
    const sim = await n8nSim({
      generation,
      apiKeys: { [KEY]: {} },
      workflows: [
        workflow("wf01", "Billing sync", { active: true, tags: [production] }),
        workflow("wf02", "Invoice export", { active: true, tags: [production] }),
        workflow("wf03", "CRM import", { active: true, tags: [production] }),
        workflow("wf04", "Payroll", { active: true, tags: [production] }),
        workflow("wf09", "A member's scratch flow"),
      ],
    });
    // The run before: in policy.
    const before = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }));
    expect(before.actions).toEqual([]);

    renameTag(sim, "tProd", "production-old");

    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }));
    // Switched off before: all four, status done.
    expect(report.warnings).toEqual([
      'n8n.workflows.keepActive[0] ("tag:production") matched no workflow that is not archived',
      '4 workflows to switch off left on: n8n.workflows.keepActive[0] ("tag:production") matched no workflow, and whatever it kept would be switched off with them (a renamed tag?); mend the selector or the workflows, and the next run switches them off',
    ]);
    expect(active(sim)).toEqual(["wf01", "wf02", "wf03", "wf04"]);
    expect(report.actions.map((a) => [a.workflowId, a.type, a.status])).toEqual(["wf01", "wf02", "wf03", "wf04"].map((id) => [id, "deactivate", "reported"]));
    // Mended (the tag named back), nothing is left to do.
    renameTag(sim, "tProd", "production");
    expect((await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }))).actions).toEqual([]);
  });
});
