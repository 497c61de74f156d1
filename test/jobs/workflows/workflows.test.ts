import { describe, expect, it } from "vitest";
import { exitCode, N8nAccessError, reconcileWorkflows, renderText, type WorkflowsOptions, type WorkflowsReport } from "../../../lib/jobs/index.ts";
import { N8nClient } from "../../../lib/n8n/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { N8nSim, N8nSimOptions, SimWorkflow } from "../../../sim/n8n/index.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-api-key-s3cret-0042";
// n8n 1.x has no publish routes: the first change of a run asks 2.x's route, gets 405, and learns the generation.
const ROUTES_1X = /\/(activate|deactivate)$/;

const production = [{ id: "2tUt1wbLX592XDdX", name: "production" }];
const staging = [{ id: "Kd8s0QmZpW3rT1xE", name: "staging" }];

/**
 * One workflow per case the policy below decides; wf05 would be activated if it were not archived (an
 * archived workflow is never activated). One archived and active is deactivated as any unlisted one is:
 * test/jobs/workflows/archived.test.ts.
 */
const FIXTURE = [
  workflow("wf01", "Billing sync", { active: true, tags: production }),
  workflow("wf02", "Stray digest", { active: true }),
  workflow("wf03", "Nightly backup"),
  workflow("wf04", "Lead import", { tags: production }),
  workflow("wf05", "Old export", { isArchived: true, tags: production }),
  workflow("wf06", "Scratch"),
  workflow("wf07", "Staging digest", { active: true, tags: staging }),
];
const EXPECTED = ["deactivate wf02", "activate wf03", "activate wf04", "deactivate wf07"];
const REFUSED = [workflow("wf09", "No trigger", { hasTrigger: false, tags: production }), workflow("wf10", "Hook clash", { webhookConflict: true, tags: production })];

/** `nightly`: how the policy selects wf03 (by name, its activation asks n8n for other workflows of the name first: name-collisions.ts). */
function policy(opts: { maxChanges?: number; unlisted?: string; listedInactive?: string; nightly?: string } = {}) {
  const text = `version: 1
n8n:
  workflows:
    keepActive: ["tag:production", "${opts.nightly ?? "name:Nightly backup"}"]
    unlisted: ${opts.unlisted ?? "deactivate"}
    listedInactive: ${opts.listedInactive ?? "publish"}
  guard:
    maxChanges: ${opts.maxChanges ?? 10}
`;
  return parsePolicy(text, "test.yaml");
}

async function start(generation: 1 | 2, opts: Partial<N8nSimOptions> = {}): Promise<N8nSim> {
  return n8nSim({ generation, workflows: FIXTURE, apiKeys: { [KEY]: {} }, recordRequests: true, ...opts });
}

function client(sim: N8nSim, apiKey = sim.apiKey): N8nClient {
  return n8nClient(sim, apiKey);
}

function reconcile(sim: N8nSim, { apiKey, ...opts }: Partial<WorkflowsOptions> & { apiKey?: string } = {}): Promise<WorkflowsReport> {
  return validated(reconcileWorkflows({ n8n: client(sim, apiKey), policy: policy(), ...opts }));
}

const plan = (report: WorkflowsReport) => report.actions.map((a) => `${a.type} ${a.workflowId}`);
const activeIds = (sim: N8nSim) => sim.workflows.filter((wf) => wf.active).map((wf) => wf.id);
/** Every request that is not a read: a run that applies nothing sends none. */
const writes = (sim: N8nSim) => sim.requests.filter((r) => r.method !== "GET" && r.method !== "HEAD").map((r) => `${r.method} ${r.url}`);
/** Activation requests that reached a route of this generation (1.x's 405 for a 2.x route aside). */
const changesSent = (sim: N8nSim, generation: 1 | 2) =>
  sim.requests.filter((r) => r.method === "POST" && (generation === 2 || ROUTES_1X.test(r.url))).map((r) => r.url);

/** Many active workflows, for a policy that keeps none: several pages, every workflow a planned change. */
function manyActive(count: number): SimWorkflow[] {
  return Array.from({ length: count }, (_, i) => workflow(`wf${String(i).padStart(4, "0")}`, `Flow ${i}`, { active: true }));
}
const keepNone = parsePolicy("version: 1\nn8n:\n  workflows: { keepActive: [], unlisted: deactivate }\n  guard: { maxChanges: 1000 }\n", "test.yaml");

describe.each([1, 2] as const)("workflows job on n8n %i.x", (generation) => {
  it("a dry run plans exactly the changes, lists unfiltered 250 at a time, and changes nothing", async () => {
    const sim = await start(generation);
    const before = activeIds(sim);
    const report = await reconcile(sim);
    expect(plan(report)).toEqual(EXPECTED);
    expect(report.actions.every((a) => a.status === "planned" && a.reason.length > 0)).toBe(true);
    expect(report.actions[0]).toEqual({ type: "deactivate", workflowId: "wf02", name: "Stray digest", reason: expect.any(String), status: "planned" });
    expect(report).toMatchObject({
      job: "workflows",
      dryRun: true,
      summary: { apiGeneration: "not checked", workflows: 7, active: 3, archived: 1, changes: 4, reported: 0, applied: 0, failed: 0, guard: "ok", complete: true },
      warnings: [],
    });
    expect(activeIds(sim)).toEqual(before);
    expect(writes(sim)).toEqual([]);
    const lists = sim.requests.filter((r) => r.method === "GET").map((r) => new URL(r.url, sim.url).searchParams);
    expect(lists.map((q) => [q.get("limit"), q.get("excludePinnedData"), q.has("active")])).toEqual([["250", "true", false]]);
    expect(exitCode(report)).toBe(2);
  });

  it("a keepActive selector that matches no workflow (or only an archived one) is a warning naming it", async () => {
    const sim = await start(generation);
    const typo = parsePolicy('version: 1\nn8n:\n  workflows:\n    keepActive: ["tag:production", "name:Nightly backups", "name:Old export"]\n', "test.yaml");
    const report = await reconcile(sim, { policy: typo });
    expect(report.warnings).toEqual([
      'n8n.workflows.keepActive[1] ("name:Nightly backups") matched no workflow that is not archived',
      'n8n.workflows.keepActive[2] ("name:Old export") matched no workflow that is not archived',
    ]);
  });

  it("apply makes exactly the planned changes through this generation's routes, one audit line each; the next dry run finds nothing", async () => {
    const sim = await start(generation);
    const audit: Record<string, unknown>[] = [];
    const report = await reconcile(sim, { apply: true, audit: { info: (message, fields) => audit.push({ message, ...fields }) } });
    expect(plan(report)).toEqual(EXPECTED);
    expect(report.actions.every((a) => a.status === "done")).toBe(true);
    expect(report.summary).toMatchObject({ apiGeneration: generation, changes: 4, applied: 4, failed: 0 });
    expect(exitCode(report)).toBe(0);
    expect(activeIds(sim)).toEqual(["wf01", "wf03", "wf04"]);
    expect(audit).toHaveLength(4);
    expect(audit.find((line) => line["workflowId"] === "wf02")).toEqual({ message: "workflow-change", workflowId: "wf02", name: "Stray digest", change: "deactivate", rule: expect.any(String), outcome: "done", error: undefined, policy: { source: "file", path: "test.yaml", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });

    const routes = sim.counters.byRoute;
    if (generation === 1) {
      // The first change (a deactivation) asked 2.x's route once; 1.x's 405 told the generation apart.
      expect(routes).toMatchObject({ "POST /workflows/:id/unpublish": 1, "POST /workflows/:id/activate": 2, "POST /workflows/:id/deactivate": 2 });
      expect(routes["POST /workflows/:id/publish"]).toBeUndefined();
      expect(sim.counters.status["405"]).toBe(1);
    } else {
      // Two changes each way, and nothing else.
      expect(routes).toMatchObject({ "POST /workflows/:id/publish": 2, "POST /workflows/:id/unpublish": 2 });
      expect(routes["POST /workflows/:id/activate"]).toBeUndefined();
      expect(routes["POST /workflows/:id/deactivate"]).toBeUndefined();
    }
    // Archived workflows: not judged, not asked about, not changed.
    expect(sim.requests.filter((r) => /wf0[58]/.test(r.url))).toEqual([]);
    expect(JSON.stringify(report)).not.toContain(KEY);

    const next = await reconcile(sim);
    expect(next.actions).toEqual([]);
    expect(exitCode(next)).toBe(0);
  });

  it("a plan larger than the guard changes nothing and exits 3", async () => {
    const sim = await start(generation);
    const before = activeIds(sim);
    const report = await reconcile(sim, { policy: policy({ maxChanges: 3 }), apply: true });
    expect(report.summary).toMatchObject({ guard: "tripped", changes: 4, applied: 0, maxChanges: 3 });
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(report.warnings).toEqual([expect.stringContaining("more than n8n.guard.maxChanges (3)")]);
    expect(writes(sim)).toEqual([]);
    expect(activeIds(sim)).toEqual(before);
    expect(exitCode(report)).toBe(3);
  });

  it("a change n8n refuses (no trigger, webhook conflict) fails with n8n's message, once, and the others go through", async () => {
    const sim = await start(generation, { workflows: [...FIXTURE, ...REFUSED] });
    const report = await reconcile(sim, { apply: true });
    const byId = Object.fromEntries(report.actions.map((a) => [a.workflowId, a]));
    expect(report.actions.filter((a) => a.status === "done").map((a) => a.workflowId)).toEqual(["wf02", "wf03", "wf04", "wf07"]);
    expect(byId["wf09"]).toMatchObject({ status: "failed", error: expect.stringMatching(generation === 1 ? /^Workflow "No trigger" \(ID: wf09\) has no node to start/ : /^Workflow cannot be activated because it has no trigger node/) });
    expect(byId["wf10"]).toMatchObject({ status: "failed", error: expect.stringMatching(/^There is a conflict with one of the webhooks/) });
    // n8n 2.x answers the conflict with 409, 1.x with 400; neither is retried.
    expect(sim.counters.status).toMatchObject(generation === 1 ? { "400": 2 } : { "400": 1, "409": 1 });
    expect(changesSent(sim, generation).filter((url) => /wf09|wf10/.test(url))).toHaveLength(2);
    expect(report.summary).toMatchObject({ applied: 4, failed: 2 });
    expect(exitCode(report)).toBe(1);
    expect(JSON.stringify(report)).not.toContain(KEY);
    expect(renderText(report, { color: false })).toMatch(/\nHook clash \(wf10\)\n {2}failed {2}activate {4}inactive but .* — There is a conflict/);
  });

  it("a workflow deleted between plan and apply is reported as n8n's 404 says: deleted, or not the key's user's to change", async () => {
    const sim = await start(generation, {
      onListPage: (_page, sim) => {
        sim.workflows = sim.workflows.filter((wf) => wf.id !== "wf03");
      },
    });
    const report = await reconcile(sim, { apply: true });
    expect(report.actions.find((a) => a.workflowId === "wf03")).toMatchObject({ status: "failed", error: expect.stringMatching(/^n8n answered 404: the workflow was deleted since it was listed, or the API key's user may not change it/) });
    expect(report.summary).toMatchObject({ applied: 3, failed: 1 });
    expect(exitCode(report)).toBe(1);
  });

  it("a wrong key stops the run before anything changes, with a clear message that does not carry the key", async () => {
    const sim = await start(generation);
    const before = activeIds(sim);
    const wrong = "n8n-wrong-key-s3cret-9999";
    const failure = await reconcile(sim, { apply: true, apiKey: wrong }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(N8nAccessError);
    expect((failure as Error).message).toMatch(/^N8N_API_KEY was refused \(401\): wrong, expired or revoked, or made on another n8n\? \(GET \/api\/v1\/workflows\?\S+ answered 401: [^)]+\)$/);
    expect((failure as Error).message).not.toContain(wrong);
    expect(writes(sim)).toEqual([]);
    expect(activeIds(sim)).toEqual(before);
  });

  it("someone's activation change between two pages does not make Warden miss a workflow", async () => {
    const workflows = manyActive(520);
    let flip: string | undefined = "wf0000";
    const sim = await start(generation, {
      workflows,
      // Right after page 1 is sent, someone switches off a workflow Warden has already seen.
      onListPage: (page, sim) => {
        if (page === 0 && flip) sim.setActive(flip, false);
        flip = undefined;
      },
    });
    const report = await reconcile(sim, { policy: keepNone });
    expect(report.summary).toMatchObject({ workflows: 520, changes: 520 });
    expect(plan(report)).toEqual(workflows.map((wf) => `deactivate ${wf.id}`));
    expect(report.stats.pages).toBe(3);

    // The hazard the unfiltered listing avoids: paging `active=true` under the same change skips one.
    sim.setActive("wf0000", true);
    flip = "wf0000";
    const filtered = await Array.fromAsync(client(sim).listWorkflows({ active: true }));
    expect(filtered).toHaveLength(519);
    expect(filtered.some((wf) => wf.id === "wf0250")).toBe(false);
  });

  it("a name selector more than one workflow answers to activates none of them (anyone may give their workflow that name): each reported, a warning names them", async () => {
    // Someone's own workflows, named as the policy's: one inactive (to have Warden activate it), one active (to be kept).
    const sim = await start(generation, { workflows: [...FIXTURE, workflow("wf20", "Nightly backup"), workflow("wf21", "Nightly backup", { active: true })] });
    const report = await reconcile(sim, { apply: true });
    const byId = Object.fromEntries(report.actions.map((a) => [a.workflowId, a]));
    for (const id of ["wf03", "wf20"]) {
      expect(byId[id]).toMatchObject({ type: "activate", status: "reported", reason: expect.stringMatching(/matches it, and 2 other workflows by that name: not activated/) });
    }
    expect(activeIds(sim)).toEqual(["wf01", "wf04", "wf21"]);
    expect(report.summary).toMatchObject({ changes: 3, reported: 2, applied: 3 });
    expect(report.warnings).toEqual([
      'n8n.workflows.keepActive[1] ("name:Nightly backup") matches 3 workflows (wf03, wf20, wf21): a name is anyone\'s to give a workflow, so none is activated for it and none deactivated; select the one meant with id:<id>',
    ]);
  });

  it("findings the policy says only to report are listed as reported, never applied, and leave the exit code alone", async () => {
    const sim = await start(generation);
    const reportOnly = await reconcile(sim, { policy: policy({ unlisted: "report", listedInactive: "report" }), apply: true });
    expect(reportOnly.actions.map((a) => `${a.status} ${a.type} ${a.workflowId}`)).toEqual(EXPECTED.map((e) => `reported ${e}`));
    expect(reportOnly.summary).toMatchObject({ changes: 0, reported: 4, applied: 0 });
    expect(writes(sim)).toEqual([]);
    expect(exitCode(reportOnly)).toBe(0);

    const mixed = await reconcile(sim, { policy: policy({ unlisted: "report" }) });
    expect(mixed.actions.map((a) => `${a.status} ${a.workflowId}`)).toEqual(["reported wf02", "planned wf03", "planned wf04", "reported wf07"]);
    expect(exitCode(mixed)).toBe(2);
  });

  it("applies at most three changes at once by default", async () => {
    // Long enough that three changes started together are still in flight together on a loaded machine.
    const sim = await start(generation, { latencyMs: 250 });
    const report = await reconcile(sim, { apply: true });
    expect(report.summary.applied).toBe(4);
    expect(sim.counters.maxConcurrency).toBe(3);
  });

  it("stopped while listing, it reports an incomplete plan and changes nothing", async () => {
    const sim = await start(generation, { workflows: manyActive(300) });
    const stop = new AbortController();
    const report = await reconcile(sim, {
      policy: keepNone,
      apply: true,
      signal: stop.signal,
      onProgress: () => stop.abort(new Error("interrupted")),
    });
    expect(report.summary).toMatchObject({ complete: false, workflows: 250, changes: 250, applied: 0 });
    expect(report.warnings).toEqual([expect.stringMatching(/^stopped while listing after 250 workflows \(interrupted\)/)]);
    expect(writes(sim)).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it("stopped while changes are in flight, reports them failed as 'may or may not have happened', with an audit line each", async () => {
    const sim = await start(generation, { latencyMs: 60 });
    const stop = new AbortController();
    const audit: Record<string, unknown>[] = [];
    // Every change a read and a POST (wf03 by id: by name, its activation reads one listing more), so that two go at once.
    const running = reconcile(sim, { apply: true, concurrency: 2, signal: stop.signal, audit: { info: (_m, fields) => audit.push(fields) }, policy: policy({ nightly: "id:wf03" }) });
    // The first change goes alone (it learns the generation); then two at once, stopped in flight.
    const poll = setInterval(() => changesSent(sim, generation).length >= 3 && stop.abort(new Error("deadline")), 5);
    const report = await running;
    clearInterval(poll);
    const stopped = report.actions.filter((a) => a.error?.includes("(deadline): it may or may not have happened"));
    expect(stopped.length).toBe(2);
    expect(stopped.every((a) => a.status === "failed")).toBe(true);
    expect(audit.map((line) => line["outcome"])).toEqual(["done", "failed", "failed"]);
    expect(report.actions.filter((a) => a.status === "planned")).toHaveLength(1);
    expect(report.summary.complete).toBe(false);
    expect(exitCode(report)).toBe(1);
  });
});

describe("workflows job on n8n 2.x with a key that lacks a scope", () => {
  it("a read-only key can dry-run: only reads are sent, and the scopes are not checked", async () => {
    const sim = await start(2, { apiKeys: { [KEY]: { scopes: ["workflow:list"] } } });
    const report = await reconcile(sim);
    expect(report.summary).toMatchObject({ changes: 4, apiGeneration: "not checked" });
    expect(report.warnings).toEqual([]);
    expect(writes(sim)).toEqual([]);
  });

  it("a key without workflow:deactivate has every deactivation refused and says so, and the activations are still made", async () => {
    const sim = await start(2, { apiKeys: { [KEY]: { scopes: ["workflow:list", "workflow:activate"] } } });
    const audit: Record<string, unknown>[] = [];
    const report = await reconcile(sim, { apply: true, audit: { info: (_m, fields) => audit.push(fields) } });
    expect(report.actions.map((a) => `${a.type} ${a.workflowId} ${a.status}`)).toEqual(["deactivate wf02 failed", "activate wf03 done", "activate wf04 done", "deactivate wf07 failed"]);
    expect(report.actions[0]?.error).toMatch(/^N8N_API_KEY lacks the workflow:deactivate scope, or its user may not change this workflow \(a viewer of its project, or shared it read-only\): .* \(POST \/api\/v1\/workflows\/wf02\/unpublish answered 403/);
    expect(report.warnings).toEqual([
      "n8n refused every deactivation Warden sent (403): the API key lacks the workflow:deactivate scope, or the key's user may not change those workflows " +
        "(a viewer of their project, or shared them read-only); give the key that scope, or its user a role that may change them, and the next run makes them",
    ]);
    expect(activeIds(sim)).toEqual(["wf01", "wf02", "wf03", "wf04", "wf07"]);
    // Each change's line as it ends: the activations, which read their workflow first, in their own time.
    expect(audit.map((line) => `${String(line["workflowId"])} ${String(line["outcome"])}`).sort()).toEqual(["wf02 failed", "wf03 done", "wf04 done", "wf07 failed"]);
    expect(exitCode(report)).toBe(1);
  });

  it("a change refused on one workflow holds no other: the rest are made, and the report does not blame the key's scope", async () => {
    // Once the listing is read (wf03's activation lists its name again later).
    let armed = false;
    const sim = await start(2, { onListPage: (_page, s) => !armed && (armed = true) && s.addFaults({ kind: "status", status: 403, route: "POST /workflows/:id/unpublish", times: 1 }) });
    const report = await reconcile(sim, { apply: true, concurrency: 1 });
    expect(report.actions.map((a) => a.status)).toEqual(["failed", "done", "done", "done"]);
    expect(report.warnings).toEqual(["n8n refused 1 deactivation (403) but made 1 other with the same key: not the key's scope, but something about those workflows (see their errors); the next run tries them again"]);
    expect(report.summary).toMatchObject({ applied: 3, failed: 1, complete: true });
    expect(exitCode(report)).toBe(1);
  });

  it("a key refused outright mid-apply (401: revoked) stops the other changes, and the report says so", async () => {
    const sim = await start(2, { onListPage: (_page, s) => s.addFaults({ kind: "status", status: 401, route: "POST /workflows/:id/unpublish", times: 1 }) });
    const report = await reconcile(sim, { apply: true, concurrency: 1 });
    expect(report.actions.map((a) => a.status)).toEqual(["failed", "planned", "planned", "planned"]);
    expect(report.warnings).toEqual([expect.stringMatching(/^stopped before 3 of 4 changes \(N8N_API_KEY was refused \(401\)/)]);
    expect(report.summary.complete).toBe(false);
    expect(exitCode(report)).toBe(1);
  });
});

describe("workflows job without an n8n section", () => {
  it("fails naming the missing section, before any request", async () => {
    const sim = await start(2);
    const failure = reconcile(sim, { policy: parsePolicy("version: 1\n", "test.yaml") });
    await expect(failure).rejects.toThrow(/^the policy has no n8n section/);
    expect(sim.counters.requests).toBe(0);
  });
});
