/**
 * Warden lists every workflow before it changes any, so on a large n8n minutes pass between a workflow's listing
 * and its deactivation. An activation reads its workflow just before (changed-meanwhile.test.ts); a deactivation
 * did not: a workflow an operator tagged for the policy, or renamed to a name it keeps, while the listing was
 * read, was switched off all the same, and with `listedInactive: report` (the default) the next run only reported
 * it: a workflow the policy keeps stayed off (the n8n review). Now the read just before a deactivation judges the
 * workflow again, and one the policy keeps by then, or one switched off meanwhile, is sent nothing.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { SimWorkflow } from "../../../sim/n8n/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { json, serve } from "../../support/server.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-kept-meanwhile-key-0021";
const policy = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["tag:production", "name:Payroll"]\n    unlisted: deactivate\n`, "kept-meanwhile.yaml");

/** The workflow to switch off, beside what each selector keeps (a selector that matches nothing holds every deactivation back). */
const world = (): SimWorkflow[] => [
  workflow("bill0001", "Billing", { active: true, tags: [{ id: "t1", name: "production" }] }),
  workflow("pay0000", "Payroll", { active: true }),
  workflow("pay0001", "Payroll draft", { active: true }),
];
const draft = (sim: { workflows: SimWorkflow[] }) => sim.workflows.find((wf) => wf.id === "pay0001")!;

const CHANGES: [string, (wf: SimWorkflow) => void, RegExp][] = [
  ["tagged production", (wf) => void (wf.tags = [{ id: "t1", name: "production" }]), /a keepActive selector matches it when read just before the change .*: not switched off, nothing was sent/],
  ["renamed to a name the policy keeps", (wf) => void (wf.name = "Payroll"), /a keepActive selector matches it when read just before the change .*: not switched off, nothing was sent/],
];

describe("an active workflow changed after Warden listed it, before its deactivation", () => {
  for (const [what, change, reason] of CHANGES) {
    for (const generation of [1, 2] as const) {
      it(`${what}, n8n ${generation}.x: is not switched off, and the run says why`, async () => {
        const sim = await n8nSim({ generation, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: world(), onListPage: (_page, s) => change(draft(s)) });
        const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }));
        expect(sim.requests.filter((r) => r.method === "POST")).toEqual([]);
        expect(draft(sim)).toMatchObject({ active: true });
        expect(report.actions).toEqual([expect.objectContaining({ type: "deactivate", status: "reported", reason: expect.stringMatching(reason) })]);
        expect(exitCode(report)).toBe(0);
      });
    }
  }

  it("switched off meanwhile: done with nothing sent, and the reason says it was not Warden", async () => {
    const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: world(), onListPage: (_page, s) => s.setActive("pay0001", false) });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }));
    expect(sim.requests.filter((r) => r.method === "POST")).toEqual([]);
    expect(report.actions).toEqual([expect.objectContaining({ type: "deactivate", status: "done", reason: expect.stringContaining("found inactive when read just before the change, so switched off meanwhile, not by Warden: nothing was sent") })]);
  });

  it("unchanged: switched off as before, after one read of it", async () => {
    const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: world() });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy, apply: true }));
    expect(report.actions).toEqual([expect.objectContaining({ type: "deactivate", status: "done" })]);
    expect(draft(sim)).toMatchObject({ active: false });
    expect(sim.requests.filter((r) => r.method === "GET" && r.url.includes("/workflows/pay0001"))).toHaveLength(1);
  });

  it("a read just before in a shape no n8n writes (tags not a list of names) is taken as unread: switched off as before", async () => {
    // A scripted n8n: the simulator writes no such shape. Before, judging it threw, the change was left planned without a word.
    const at = "2026-01-01T00:00:00.000Z";
    const listed = world().map(({ id, name, active, tags }) => ({ id, name, active, isArchived: false, tags, createdAt: at, updatedAt: at }));
    const s = await serve((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: listed, nextCursor: null });
      if (req.method === "GET" && path === "/api/v1/workflows/pay0001") return json(res, 200, { ...listed[2], tags: "production" });
      if (req.method === "POST" && path === "/api/v1/workflows/pay0001/unpublish") return json(res, 200, { ...listed[2], active: false });
      return json(res, 404, { message: "not found" });
    });
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(s, KEY), policy, apply: true }));
    expect(report.actions).toEqual([expect.objectContaining({ workflowId: "pay0001", type: "deactivate", status: "done" })]);
  });
});
