import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkflowsReport } from "../../lib/jobs/index.ts";
import { startN8nSim, type N8nSim, type SimWorkflow } from "../../sim/n8n/index.ts";
import { runLabels } from "../../functions/shared/runs/triggers.ts";
import { dynamoRefusals, REFUSALS_KEY } from "../../functions/shared/state/workflows-refusals.ts";
import { lambdaContext, N8N_SECRET_ARN, SECRETS, writePolicy } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { validReport } from "../support/report.ts";

const POLICY = `version: 1
n8n:
  workflows:
    keepActive: ["tag:production"]
    unlisted: deactivate
    listedInactive: publish
`;

function workflow(id: string, active: boolean, tags: string[] = []): SimWorkflow {
  const at = "2025-01-01T00:00:00.000Z";
  return { id, name: `Workflow ${id}`, active, isArchived: false, hasTrigger: true, createdAt: at, updatedAt: at, tags: tags.map((name, i) => ({ id: `t${i}`, name })) };
}
const FIXTURE = [workflow("wf1", true, ["production"]), workflow("wf2", true), workflow("wf3", false, ["production"]), workflow("wf4", false)];

const world = lambdaWorld({ policy: POLICY, dynamo: true, env: () => ({ WARDEN_REPORT_ONLY: "false" }) });
let sim: N8nSim;

beforeEach(async () => {
  sim = await startN8nSim({ generation: 2, workflows: FIXTURE, apiKeys: { [SECRETS.n8nApiKey]: {} } });
  vi.stubEnv("N8N_URL", sim.url);
});
afterEach(() => sim.close());

async function invoke(event: unknown): Promise<WorkflowsReport> {
  vi.resetModules();
  const { handler } = await import("../../functions/workflows.ts");
  return (await handler(event as never, lambdaContext())) as WorkflowsReport;
}

const active = () => sim.workflows.filter((w) => w.active).map((w) => w.id);

describe("workflows Lambda", () => {
  it("applies on the schedule's fixed input", async () => {
    const report = await invoke({ source: "schedule" });
    expect(validReport(report)).toMatchObject({ job: "workflows", dryRun: false, summary: { changes: 2, applied: 2 } });
    expect(active()).toEqual(["wf1", "wf3"]);
  });

  it("runs dry on {} and changes nothing", async () => {
    const report = await invoke({});
    expect(report).toMatchObject({ dryRun: true, summary: { changes: 2, applied: 0 } });
    expect(report.actions.map((a) => `${a.type} ${a.workflowId}`)).toEqual(["deactivate wf2", "activate wf3"]);
    expect(active()).toEqual(["wf1", "wf2"]);
  });

  it("re-reads the secret when n8n refuses the key, and runs once more with the rotated one", async () => {
    await sim.close();
    const rotated = "n8n-key-rotated-0002";
    sim = await startN8nSim({ generation: 2, workflows: FIXTURE, apiKeys: { [rotated]: {} } });
    vi.stubEnv("N8N_URL", sim.url);
    world.secretsManager.queued.push(JSON.stringify(SECRETS));
    world.secretsManager.secretString = JSON.stringify({ ...SECRETS, n8nApiKey: rotated });
    await expect(invoke({ source: "schedule" })).resolves.toMatchObject({ dryRun: false, summary: { applied: 2 } });
    expect(sim.counters.status["401"]).toBe(1);
  });

  it("runs on an n8n-only deployment: a secret with n8nApiKey alone, and no GITLAB_URL", async () => {
    world.secretsManager.secretString = JSON.stringify({ n8nApiKey: SECRETS.n8nApiKey });
    vi.stubEnv("GITLAB_URL", undefined);
    await expect(invoke({ source: "schedule" })).resolves.toMatchObject({ dryRun: false, summary: { applied: 2 } });
  });

  // As sst.config.ts deploys it with WARDEN_N8N_SECRET_ARN: no read of the jobs' secret, which holds the GitLab token.
  it("runs with n8n's own secret alone, never asking for the jobs' secret", async () => {
    vi.stubEnv("WARDEN_SECRET_ARN", undefined);
    vi.stubEnv("WARDEN_N8N_SECRET_ARN", N8N_SECRET_ARN);
    world.secretsManager.reads.length = 0;
    await expect(invoke({ source: "schedule" })).resolves.toMatchObject({ dryRun: false, summary: { applied: 2 } });
    expect(new Set(world.secretsManager.reads)).toEqual(new Set([N8N_SECRET_ARN]));
  });

  it("fails on an unknown field before calling n8n", async () => {
    await expect(invoke({ apply: true })).rejects.toThrow('invalid event: unknown field "apply"');
    expect(sim.counters.requests).toBe(0);
  });
});

// A change n8n refuses on every run (no trigger node: 400 to every activation) is remembered in the claims table
// (state/workflows-refusals.ts): the next run tries it again without counting it, so standing refusals do not hold
// every other change behind n8n.guard.maxChanges.
describe("workflows Lambda: the changes n8n refused for good the run before", () => {
  const store = () => dynamoRefusals({ client: world.dynamo.client(), table: () => world.table });

  /** A scheduled run under a guard of one change, which n8n refuses for good (wf1 has no trigger node); then wf2 is switched on (published). */
  async function refusedOnce(): Promise<WorkflowsReport> {
    vi.stubEnv("WARDEN_POLICY", await writePolicy(`${POLICY}  guard:\n    maxChanges: 1\n`));
    sim.workflows.splice(0, sim.workflows.length, { ...workflow("wf1", false, ["production"]), hasTrigger: false });
    const first = await invoke({ source: "schedule" });
    sim.workflows.push({ ...workflow("wf2", true), activeVersionId: "v-wf2" });
    return first;
  }

  it("are remembered under the policy, and the next scheduled run does not count them against the guard", async () => {
    const first = await refusedOnce();
    expect(first.actions).toMatchObject([{ workflowId: "wf1", status: "failed", lasting: true }]);
    expect(await store().read()).toEqual({ policySha256: first.policy!.sha256, at: first.startedAt, refused: ["activate:wf1"] });

    const next = validReport(await invoke({ source: "schedule" }));
    expect(next.summary).toMatchObject({ guard: "ok", changes: 2, failed: 0, applied: 1, complete: false });
    expect(active()).toEqual([]);
    expect(next.warnings).toContainEqual(expect.stringContaining("1 change n8n refused for good in the last run"));
    expect(await store().read()).toMatchObject({ at: next.startedAt, refused: ["activate:wf1"] });
  });

  it("are kept by a console run too (a dry one keeps those it did not try), and by no chat command's run", async () => {
    const first = await refusedOnce();
    const dry = validReport(await invoke({}));
    expect(dry.summary).toMatchObject({ guard: "ok", changes: 2 });
    expect(dry.actions).toContainEqual(expect.objectContaining({ workflowId: "wf1", status: "planned", refusedBefore: true }));
    expect(await store().read()).toEqual({ policySha256: first.policy!.sha256, at: dry.startedAt, refused: ["activate:wf1"] });

    // The Worker ends a chat command's run as the Workflows function ends its own, under the chat trigger: nothing is kept.
    const { afterRun } = await import("../../functions/shared/runs/after-run.ts");
    await afterRun({ report: first }, runLabels("workflows", "chat", "req-chat-1"));
    expect(await store().read()).toMatchObject({ at: dry.startedAt });
  });

  it("a record that cannot be read is not written over: the run counts every change, and the record is left for an operator", async () => {
    await refusedOnce();
    const client = world.dynamo.client();
    const Key = { id: { S: REFUSALS_KEY } };
    await client.send(new PutItemCommand({ TableName: world.table, Item: { ...Key, refused: { S: "not a list" } } }));
    const next = validReport(await invoke({ source: "schedule" }));
    expect(next.summary.guard).toBe("tripped");
    expect((await client.send(new GetItemCommand({ TableName: world.table, Key }))).Item).toEqual({ ...Key, refused: { S: "not a list" } });
  });
});
