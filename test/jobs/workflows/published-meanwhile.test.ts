/**
 * A review's finding (n8n13). n8n 2.x's publish is not idempotent: WorkflowService.activateWorkflow publishes
 * `options.versionId ?? workflow.versionId`, the latest saved draft, and replaces a version already published
 * (n8n-io/n8n packages/cli/src/workflows/workflow.service.ts). A workflow Warden listed as inactive, which a
 * person published (a reviewed, older version) before Warden's change reached it, had that version replaced
 * by whatever draft was saved last: Warden chose which code runs, though the policy asked only for the
 * workflow to be active, and it already was. An activation now reads its workflow first: found active, it
 * sends nothing; else it names the version read, so a draft saved after the read is not what goes live.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient, n8nSim, workflow } from "../../support/n8n-world.ts";
import { validated } from "../../support/report.ts";

const KEY = "n8n-published-meanwhile-key-0001";
const policy = (keep: string[]) => parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ${JSON.stringify(keep)}\n    listedInactive: publish\n`, "race.yaml");
const posts = (sim: Awaited<ReturnType<typeof n8nSim>>) => sim.requests.filter((r) => r.method === "POST").map((r) => `${new URL(r.url, sim.url).pathname} ${r.body}`);

it("a workflow a person published after Warden listed it keeps the version they published (n8n 2.x republishes the latest draft on a repeated /publish)", async () => {
  // One workflow, as a real n8n 2.x keeps it: its latest saved draft, and the version published (none yet).
  const state = { id: "wfRace0000000001", name: "Invoices", versionId: "draft-3", activeVersionId: null as string | null };
  const served = () => ({ id: state.id, name: state.name, active: state.activeVersionId !== null, activeVersionId: state.activeVersionId, isArchived: false, tags: [], versionId: state.versionId });
  const s = await serve((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (req.method === "GET" && path === "/api/v1/workflows") {
      json(res, 200, { data: [served()], nextCursor: null });
      // Meanwhile, in n8n's UI, its owner publishes version 2, the one they reviewed (not the later draft).
      state.activeVersionId = "v2";
      return;
    }
    if (req.method === "GET" && path === `/api/v1/workflows/${state.id}`) return json(res, 200, served());
    if (req.method === "POST" && path === `/api/v1/workflows/${state.id}/publish`) {
      // n8n 2.x: activateWorkflow publishes body.versionId ?? workflow.versionId, replacing any active version.
      const body = req.body ? (JSON.parse(req.body) as { versionId?: string }) : {};
      state.activeVersionId = body.versionId ?? state.versionId;
      return json(res, 200, served());
    }
    return json(res, 404, { message: "not found" });
  });
  await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policy([`id:${state.id}`]), apply: true });

  // The policy asked for the workflow to be active; it is, with the version its owner chose.
  expect(state.activeVersionId).toBe("v2");
});

describe("n8n 2.x (the simulator publishes as n8n does)", () => {
  it("a workflow published meanwhile: nothing sent, done, and its reason says it was not Warden's change", async () => {
    const sim = await n8nSim({
      generation: 2,
      apiKeys: { [KEY]: {} },
      recordRequests: true,
      workflows: [workflow("wf01", "Invoices")],
      // Once listed, its owner publishes the version they reviewed, then saves a newer draft.
      onListPage: (_page, s) => {
        s.publish("wf01");
        s.saveDraft("wf01");
      },
    });
    const reviewed = sim.workflows[0]!.versionId;
    const report = await validated(reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: policy(["id:wf01"]), apply: true }));
    expect(report.actions).toEqual([
      expect.objectContaining({ type: "activate", status: "done", reason: expect.stringMatching(/; found active when read just before the change, so switched on meanwhile, not by Warden: nothing was sent/) }),
    ]);
    expect(posts(sim)).toEqual([]);
    expect(sim.workflows[0]).toMatchObject({ active: true, activeVersionId: reviewed });
  });

  it("otherwise publishes the version it read, not a draft saved after the read", async () => {
    const wf = { id: "wfDraft000000001", name: "Invoices", versionId: "draft-1", activeVersionId: null as string | null };
    const served = () => ({ ...wf, active: wf.activeVersionId !== null, isArchived: false, tags: [] });
    const s = await serve((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: [served()], nextCursor: null });
      if (req.method === "GET" && path === `/api/v1/workflows/${wf.id}`) {
        json(res, 200, served());
        wf.versionId = "draft-2"; // an editor saves again, right after Warden's read
        return;
      }
      if (req.method === "POST" && path === `/api/v1/workflows/${wf.id}/publish`) {
        wf.activeVersionId = (JSON.parse(req.body || "{}") as { versionId?: string }).versionId ?? wf.versionId;
        return json(res, 200, served());
      }
      return json(res, 404, { message: "not found" });
    });
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policy([`id:${wf.id}`]), apply: true });
    expect(report.actions.map((a) => a.status)).toEqual(["done"]);
    expect(wf.activeVersionId).toBe("draft-1");
  });

  it("a key without workflow:read: the read is refused (403), and the change is sent as before, naming no version", async () => {
    const scopes = ["workflow:list", "workflow:activate", "workflow:deactivate"];
    const sim = await n8nSim({ generation: 2, apiKeys: { [KEY]: { scopes } }, recordRequests: true, workflows: [workflow("wf01", "Invoices")] });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: policy(["id:wf01"]), apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["wf01 done"]);
    expect(sim.counters.status["403"]).toBe(1);
    expect(posts(sim)).toEqual(["/api/v1/workflows/wf01/publish "]);
  });

  it("an activation found made meanwhile does not count as one the key made, in the warning about 403s", async () => {
    const listed = (id: string) => ({ id, name: id, active: false, activeVersionId: null, isArchived: false, tags: [], versionId: `${id}-v1` });
    const s = await serve((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: [listed("wfA"), listed("wfB")], nextCursor: null });
      // wfA was published meanwhile; wfB is one the key's user may only view.
      if (req.method === "GET" && path === "/api/v1/workflows/wfA") return json(res, 200, { ...listed("wfA"), active: true, activeVersionId: "wfA-v1" });
      if (req.method === "GET" && path === "/api/v1/workflows/wfB") return json(res, 200, listed("wfB"));
      if (req.method === "POST") return json(res, 403, { message: "Forbidden" });
      return json(res, 404, { message: "not found" });
    });
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policy(["id:wfA", "id:wfB"]), apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["wfA done", "wfB failed"]);
    expect(report.warnings).toEqual([expect.stringMatching(/^n8n refused every activation Warden sent \(403\)/)]);
  });
});

describe("a read before the change that ends it sends nothing", () => {
  const world = (onRead: (res: Parameters<Parameters<typeof serve>[0]>[1]) => void) =>
    serve((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: [{ id: "wf01", name: "Invoices", active: false, activeVersionId: null, isArchived: false, tags: [], versionId: "v1" }], nextCursor: null });
      if (req.method === "GET") return onRead(res);
      return json(res, 200, {});
    });

  it("a refused key (401): the change stays planned, no POST, the run says the key was refused", async () => {
    const s = await world((res) => json(res, 401, { message: "unauthorized" }));
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policy(["id:wf01"]), apply: true });
    expect(s.received.filter((r) => r.method === "POST")).toEqual([]);
    expect(report.actions.map((a) => a.status)).toEqual(["planned"]);
    expect(report.warnings).toEqual([expect.stringMatching(/^stopped before 1 of 1 change \(N8N_API_KEY was refused \(401\)/)]);
  });

  it("a stop while reading: the change stays planned, not 'may or may not have happened'", async () => {
    const stop = new AbortController();
    const s = await world(() => stop.abort(new Error("SIGTERM")));
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policy(["id:wf01"]), apply: true, signal: stop.signal });
    expect(s.received.filter((r) => r.method === "POST")).toEqual([]);
    expect(report.actions).toEqual([expect.objectContaining({ status: "planned" })]);
    expect(JSON.stringify(report.actions)).not.toMatch(/may or may not/);
  });
});

describe("n8n 1.x", () => {
  it("activates with the version read in the body, which 1.x's /activate does not read", async () => {
    const sim = await n8nSim({ generation: 1, apiKeys: { [KEY]: {} }, recordRequests: true, workflows: [workflow("wf01", "Invoices", { versionId: "v-1" })] });
    const report = await reconcileWorkflows({ n8n: n8nClient(sim, KEY), policy: policy(["id:wf01"]), apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["wf01 done"]);
    expect(posts(sim)).toEqual(['/api/v1/workflows/wf01/publish {"versionId":"v-1"}', '/api/v1/workflows/wf01/activate {"versionId":"v-1"}']);
    expect(sim.workflows[0]!.active).toBe(true);
  });
});
