import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowsReport } from "../../lib/jobs/index.ts";
import { startN8nSim, type N8nSim, type SimWorkflow } from "../../sim/n8n/index.ts";
import { policyFile, warden, type CliRun } from "../support/cli.ts";
import { reportJson } from "../support/report.ts";

const KEY = "n8n-api-key-s3cret-cli-77";
const WRONG_KEY = "n8n-wrong-key-s3cret-cli-88";

function workflow(id: string, name: string, overrides: Partial<SimWorkflow> = {}): SimWorkflow {
  const at = "2025-01-01T00:00:00.000Z";
  return { id, name, active: false, isArchived: false, tags: [], hasTrigger: true, createdAt: at, updatedAt: at, ...overrides };
}
const production = [{ id: "2tUt1wbLX592XDdX", name: "production" }];

const FIXTURE = [
  workflow("wfA", "Billing sync", { active: true, tags: production }),
  workflow("wfB", "Stray digest", { active: true }),
  workflow("wfC", "Lead import", { tags: production }),
  workflow("wfD", "Old export", { isArchived: true, tags: production }),
];
const EXPECTED = ["deactivate wfB", "activate wfC"];

const policy = (maxChanges: number) => `version: 1
n8n:
  workflows:
    keepActive: ["tag:production"]
    unlisted: deactivate
    listedInactive: publish
  guard: { maxChanges: ${maxChanges} }
`;

const plan = (run: CliRun) => (reportJson(run.stdout) as WorkflowsReport).actions.map((a) => `${a.type} ${a.workflowId}`);

describe("warden workflows, before any call to n8n", () => {
  it("--help describes the environment, the reported status and the exit codes", async () => {
    const run = await warden(["workflows", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/N8N_URL[\s\S]*N8N_API_KEY/);
    expect(run.stdout).toMatch(/status "reported"[\s\S]*Reported findings do not affect the exit code/);
    expect(run.stdout).toMatch(/Exit codes: 0 in policy [\s\S]*\s2 dry run found changes, 3 guard tripped/);
  });

  it("a missing N8N_URL is named", async () => {
    const run = await warden(["workflows"], { N8N_API_KEY: KEY, WARDEN_POLICY: policyFile(policy(10)) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("warden workflows: N8N_URL is not set\n");
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });
});

// The generations run side by side (each has its own simulator); the steps within one run in order.
describe.concurrent.each([1, 2] as const)("warden workflows on n8n %i.x, end to end", (generation) => {
  let sim: N8nSim;
  let env: Record<string, string>;
  const runs: CliRun[] = [];
  const cli = async (args: string[], overrides: Record<string, string> = {}) => {
    const run = await warden(["workflows", ...args], { ...env, ...overrides });
    runs.push(run);
    return run;
  };
  const activeIds = () => sim.workflows.filter((wf) => wf.active).map((wf) => wf.id);

  beforeAll(async () => {
    sim = await startN8nSim({ generation, workflows: FIXTURE, apiKeys: { [KEY]: {} } });
    env = { N8N_URL: sim.url, N8N_API_KEY: KEY, WARDEN_POLICY: policyFile(policy(10)) };
  });
  afterAll(() => sim.close());

  // In order: each step starts from the state the previous one left.
  describe.sequential("step by step", () => {
    it("a dry run exits 2, plans exactly the changes and changes nothing", async () => {
      const before = activeIds();
      const run = await cli(["--json"]);
      expect(run.code).toBe(2);
      expect(plan(run)).toEqual(EXPECTED);
      expect(reportJson(run.stdout)).toMatchObject({ job: "workflows", dryRun: true, summary: { apiGeneration: "not checked", archived: 1 } });
      expect(activeIds()).toEqual(before);
    });

    it("without --json it prints a table, one workflow a group, and the summary", async () => {
      const run = await cli([]);
      expect(run.code).toBe(2);
      expect(run.stdout).toMatch(/^Warden workflows \(dry run\): 2 workflows out of policy\n/);
      expect(run.stdout).toMatch(/\nStray digest \(wfB\)\n {2}planned {2}deactivate {2}active but no keepActive selector matches it\n/);
      expect(run.stdout).toContain(`4 workflows (2 active, 1 archived, never activated): 2 changes planned, 0 only reported; 0 applied, 0 failed; guard ok (max 10); n8n API generation not checked (learned at the first change)`);
    });

    it("the guard exits 3 with nothing changed", async () => {
      const before = activeIds();
      const run = await cli(["--apply", "--json", "--policy", policyFile(policy(1))]);
      expect(run.code).toBe(3);
      expect(reportJson(run.stdout).summary.guard).toBe("tripped");
      expect(activeIds()).toEqual(before);
    });

    it("a wrong key exits 1 with a clear message, before anything changes", async () => {
      const before = activeIds();
      const run = await cli(["--apply"], { N8N_API_KEY: WRONG_KEY });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^warden workflows: N8N_API_KEY was refused \(401\): wrong, expired or revoked, or made on another n8n\? \(GET \/api\/v1\/workflows\?\S+ answered 401: [^)]+\)\n$/);
      expect(activeIds()).toEqual(before);
    });

    it("apply exits 0 having made the changes, with one audit line each on stderr", async () => {
      const run = await cli(["--apply", "--json"]);
      expect(run.code).toBe(0);
      expect(plan(run)).toEqual(EXPECTED);
      expect(reportJson(run.stdout).summary.apiGeneration).toBe(generation);
      expect(activeIds()).toEqual(["wfA", "wfC"]);
      const audit = run.stderr.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      // Changes run concurrently: their audit lines come in any order.
      expect(audit.map((a) => `${a["message"]} ${a["change"]} ${a["workflowId"]} ${a["outcome"]}`).sort()).toEqual(["workflow-change activate wfC done", "workflow-change deactivate wfB done"]);
    });

    it("the next dry run exits 0", async () => {
      const run = await cli(["--json"]);
      expect(run.code).toBe(0);
      expect(reportJson(run.stdout).actions).toEqual([]);
    });

    it("a change n8n refuses exits 1 and reports n8n's reason", async () => {
      sim.workflows.push(workflow("wfE", "No trigger", { hasTrigger: false, tags: production, activeVersionId: generation === 2 ? null : undefined }));
      const run = await cli(["--apply", "--json"]);
      expect(run.code).toBe(1);
      expect(reportJson(run.stdout).actions).toEqual([
        expect.objectContaining({ workflowId: "wfE", status: "failed", error: expect.stringMatching(/no (trigger )?node/) }),
      ]);
    });

    it("the API key never appears in any output", () => {
      expect(runs.length).toBeGreaterThan(5);
      for (const run of runs) {
        expect(run.stdout + run.stderr).not.toContain(KEY);
        expect(run.stdout + run.stderr).not.toContain(WRONG_KEY);
      }
    });
  });
});
