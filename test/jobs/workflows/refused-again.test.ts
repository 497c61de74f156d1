/**
 * A change n8n refuses on every run (a workflow whose trigger node was deleted: 400 to every activation;
 * one the key's user may only view: 403) is planned again by each run. Counted against
 * n8n.guard.maxChanges, that many standing refusals would trip the guard on every run, and a workflow
 * someone switched on that no selector keeps would never be switched off. So a run is told the changes
 * the last run under the same policy had refused for good (refusalsOf, kept by the front end): it tries
 * them again, counts them not, and says which and what mends them; it makes no more of them than leaves the
 * run's changes within the guard, or refusals gathered over runs and mended at once would all be made. A run that tries them not (dry, tripped,
 * its listing stopped short) keeps them; a policy changed since clears them; a refusal that may pass (a
 * 5xx, a 429) is not remembered; the record is bounded.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows, type WorkflowsReport } from "../../../lib/jobs/index.ts";
import { refusalsOf, type LastRefusals } from "../../../lib/jobs/workflows/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validReport } from "../../support/report.ts";
import type { N8nFault, N8nSim } from "../../../sim/n8n/index.ts";

const KEY = "refused-again-n8n-key-0001";
const policyText = (maxChanges: number) => `version: 1
n8n:
  workflows:
    keepActive: ["tag:prod"]
    unlisted: deactivate
    listedInactive: activate
  guard:
    maxChanges: ${maxChanges}
`;
const policy = parsePolicy(policyText(2), "refused.yaml");
const prod = [{ id: "t1", name: "prod" }];
/** Two prod workflows whose trigger node was deleted: n8n answers 400 to every activation. */
const untriggered = () => [workflow("wf01", "Nightly export", { tags: prod, hasTrigger: false }), workflow("wf02", "Billing sync", { tags: prod, hasTrigger: false })];

async function world(faults: N8nFault[] = []): Promise<N8nSim> {
  return n8nSim({ generation: 1, apiKeys: { [KEY]: {} }, workflows: untriggered(), faults });
}

/** A run as the Workflows function makes it: told the record the run before it left. */
async function run(sim: N8nSim, last: LastRefusals | undefined, opts: { apply?: boolean; policy?: typeof policy } = {}): Promise<WorkflowsReport> {
  return validReport(await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: opts.policy ?? policy, apply: opts.apply ?? true, ...(last && { lastRefusals: last }) }));
}

const outcomes = (report: WorkflowsReport) => report.actions.map((a) => `${a.workflowId} ${a.status}`);
const switchedOn = (sim: N8nSim) => sim.workflows.push(workflow("wf09", "Copy all customers to my sheet", { active: true }));

describe("workflows: changes n8n refuses on every run", () => {
  it("are tried again but not counted, so a newly switched-on unlisted workflow is switched off, every hour", async () => {
    const sim = await world();
    const first = await run(sim, undefined);
    expect(first.summary.guard).toBe("ok");
    expect(first.actions).toMatchObject([{ workflowId: "wf01", status: "failed", lasting: true }, { workflowId: "wf02", status: "failed", lasting: true }]);
    let last = refusalsOf(first);
    expect(last).toEqual({ policySha256: policy.source.sha256, at: first.startedAt, refused: ["activate:wf01", "activate:wf02"] });

    switchedOn(sim);
    for (let hour = 0; hour < 3; hour++) {
      sim.workflows.find((w) => w.id === "wf09")!.active = true;
      const report = await run(sim, last);
      expect(report.summary.guard, report.warnings.join("\n")).toBe("ok");
      expect(sim.workflows.find((w) => w.id === "wf09")?.active).toBe(false);
      // Tried again (n8n may have been mended since), named once, with what mends them.
      expect(report.actions.filter((a) => a.refusedBefore).map((a) => a.workflowId)).toEqual(["wf01", "wf02"]);
      expect(report.warnings.filter((w) => w.includes("refused for good"))).toEqual([
        expect.stringMatching(/^guard: 2 changes n8n refused for good in the last run \(.+\) under this same policy, tried again but not counted against n8n\.guard\.maxChanges: activate wf01 \("Nightly export"\), activate wf02 \("Billing sync"\); give the API key's user the rights.*add a trigger node.*n8n\.workflows\.keepActive/),
      ]);
      last = refusalsOf(report, last);
      expect(last?.refused).toEqual(["activate:wf01", "activate:wf02"]);
    }
  });

  it("a run that tries none of them (a dry run, a tripped guard) keeps them for the next, and a guard over the rest still trips", async () => {
    const sim = await world();
    const last = refusalsOf(await run(sim, undefined));
    const dry = await run(sim, last, { apply: false });
    const afterDry = refusalsOf(dry, last);
    expect(afterDry?.refused).toEqual(["activate:wf01", "activate:wf02"]);

    for (const id of ["wf07", "wf08", "wf09"]) sim.workflows.push(workflow(id, `Side project ${id}`, { active: true }));
    const tripped = await run(sim, afterDry);
    expect(tripped.summary).toMatchObject({ guard: "tripped", changes: 5, applied: 0 });
    expect(tripped.warnings).toContain("guard: 3 changes planned (besides those refused last run), more than n8n.guard.maxChanges (2); nothing was changed");
    expect(refusalsOf(tripped, afterDry)?.refused).toEqual(["activate:wf01", "activate:wf02"]);
  });

  it("count again under another policy, or once n8n made them", async () => {
    const sim = await world();
    const last = refusalsOf(await run(sim, undefined));
    switchedOn(sim);
    const changed = await run(sim, last, { policy: parsePolicy(policyText(2) + "# reviewed\n", "refused.yaml") });
    expect(changed.summary.guard).toBe("tripped");
    expect(changed.actions.some((a) => a.refusedBefore)).toBe(false);

    // Mended (a trigger added): made by the next run, as far as the guard has room (wf09 is counted), and forgotten once made.
    for (const wf of sim.workflows) wf.hasTrigger = true;
    const mended = await run(sim, last);
    expect(outcomes(mended)).toEqual(["wf01 done", "wf02 planned", "wf09 done"]);
    expect(refusalsOf(mended, last)?.refused).toEqual(["activate:wf02"]);
  });

  // A hostile review of the record: rebuilt by each run from what it planned alone, it was emptied by a run whose listing the
  // guard stopped before the refused workflows, and from then on they counted again, every run tripped.
  it("a run whose listing the guard stopped before them keeps them: the next runs do not trip on them", async () => {
    // The two refused workflows listed after 260 idle ones: a listing stopped at the guard on its first page never sees them.
    const fillers = Array.from({ length: 260 }, (_, i) => workflow(`m${String(i).padStart(3, "0")}`, `Idle ${i}`));
    const sim = await n8nSim({ generation: 1, apiKeys: { [KEY]: {} }, workflows: [...fillers, ...untriggered().map((w) => ({ ...w, id: `z${w.id}` }))] });
    let last = refusalsOf(await run(sim, undefined));
    expect(last?.refused).toEqual(["activate:zwf01", "activate:zwf02"]);
    // Three members switch on side projects at once: the guard trips, rightly, and the listing stops on its first page.
    for (const id of ["a1", "a2", "a3"]) sim.workflows.push(workflow(id, `Side project ${id}`, { active: true }));
    const tripped = await run(sim, last);
    expect(tripped.summary.guard).toBe("tripped");
    last = refusalsOf(tripped, last);
    // Two of them switched off by hand: one stray is left, which the guard lets through.
    for (const id of ["a2", "a3"]) sim.workflows.find((w) => w.id === id)!.active = false;
    const guards: string[] = [];
    for (let hour = 0; hour < 3; hour++) {
      const report = await run(sim, last);
      guards.push(report.summary.guard);
      last = refusalsOf(report, last);
    }
    expect({ guards, record: last?.refused, a1: sim.workflows.find((w) => w.id === "a1")?.active }).toEqual({ guards: ["ok", "ok", "ok"], record: ["activate:zwf01", "activate:zwf02"], a1: false });
  });

  // A review's suspicion, proved: a member tagged maxChanges trigger-less workflows a run, each refused and remembered, then added
  // triggers to all of them, and the next run switched them all on, counted by no guard.
  it("refusals gathered over runs and then mended at once are made no more than n8n.guard.maxChanges a run; the rest wait in the record", async () => {
    const sim = await world();
    let last = refusalsOf(await run(sim, undefined));
    sim.workflows.push(workflow("wf03", "Side project 3", { tags: prod, hasTrigger: false }), workflow("wf04", "Side project 4", { tags: prod, hasTrigger: false }));
    // The two new ones fill the guard: the two refused before are not tried, and stay in the record.
    const second = await run(sim, last);
    expect(outcomes(second)).toEqual(["wf01 planned", "wf02 planned", "wf03 failed", "wf04 failed"]);
    last = refusalsOf(second, last);
    expect(last?.refused).toEqual(["activate:wf03", "activate:wf04", "activate:wf01", "activate:wf02"]);

    for (const wf of sim.workflows) wf.hasTrigger = true;
    const mended = await run(sim, last);
    expect(sim.workflows.filter((w) => w.active)).toHaveLength(2);
    expect(outcomes(mended)).toEqual(["wf01 done", "wf02 done", "wf03 planned", "wf04 planned"]);
    expect(mended.summary).toMatchObject({ guard: "ok", applied: 2, complete: false });
    expect(mended.warnings).toContain("guard: 2 changes n8n refused last run not tried again, as n8n.guard.maxChanges (2) changes were made or tried by then; the next run tries them");
    expect(exitCode(mended)).toBe(1);
    last = refusalsOf(mended, last);
    expect(last?.refused).toEqual(["activate:wf03", "activate:wf04"]);
    expect(outcomes(await run(sim, last))).toEqual(["wf03 done", "wf04 done"]);
  });

  it("a refusal that may pass at another try (a 5xx, a 429) is not remembered: the next run counts it", async () => {
    const sim = await n8nSim({ generation: 1, apiKeys: { [KEY]: {} }, workflows: [workflow("wf01", "Nightly export", { tags: prod })], faults: [{ kind: "status", status: 503, route: "POST /workflows/:id/activate", times: 100 }] });
    const report = await run(sim, undefined);
    expect(outcomes(report)).toEqual(["wf01 failed"]);
    expect(report.actions[0]!.lasting).toBeUndefined();
    expect(refusalsOf(report)?.refused).toEqual([]);
  });

  it("the record stays bounded however many changes n8n refuses, and leaves out an id no n8n gives", () => {
    const refused = (workflowId: string) => ({ type: "activate" as const, workflowId, name: "w", status: "failed", lasting: true as const });
    const actions = [refused("x".repeat(101)), ...Array.from({ length: 1_000_000 }, (_, i) => refused(`wf${i}`))];
    const record = refusalsOf({ startedAt: "2026-01-01T00:00:00.000Z", policy: { sha256: "a".repeat(64) }, actions });
    expect(record?.refused).toHaveLength(2_000);
    expect(record?.refused[0]).toBe("activate:wf0");
    expect(JSON.stringify(record).length).toBeLessThan(400_000);
  });
});
