import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { coldEnforce, lambdaContext, SECRETS, writePolicy } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { validReport } from "../support/report.ts";

const world = lambdaWorld({ policy: standardPolicy(), env: () => ({ WARDEN_REPORT_ONLY: "false" }) });
let sim: GitLabSim;
let strays: string[];

/** The test's simulator: tests start another with other options midway. */
async function startSim(opts: GitLabSimOptions = {}) {
  const { dataset, intents } = generateOrganisation({ projects: 120, seed: 7 });
  sim = await startGitLabSim({ dataset, ...opts });
  strays = intents.filter((i) => i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
  vi.stubEnv("GITLAB_URL", sim.url);
}

beforeEach(() => startSim());
afterEach(() => sim.close());


const removed = () => sim.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;

describe("enforce Lambda", () => {
  it("applies on the schedule's fixed input, { source: schedule }", async () => {
    const report = await (await coldEnforce<EnforceReport>())({ source: "schedule" });
    expect(strays.length).toBeGreaterThan(0);
    expect(validReport(report)).toMatchObject({ job: "enforce", dryRun: false, summary: { removed: strays.length, complete: true } });
    expect(removed()).toBe(strays.length);
    // The secret came through the real SDK from the loopback Secrets Manager.
    expect(world.secretsManager.reads).toHaveLength(1);
  });

  it("under onStray notify, the schedule opens one notice per stray share and removes nothing; the next scheduled run opens none", async () => {
    const notices = sim.dataset.projects.find((p) => !p.archived)!;
    vi.stubEnv("WARDEN_POLICY", await writePolicy(standardPolicy().replace("    exempt:\n", `    onStray: notify\n    grace: 7d\n    notices: { project: ${JSON.stringify(notices.path_with_namespace)} }\n    exempt:\n`)));
    const run = await coldEnforce<EnforceReport>();
    const first = validReport(await run({ source: "schedule" }));
    expect(first).toMatchObject({ dryRun: false, summary: { removed: 0, notices: { opened: strays.length, pending: 0 } } });
    expect(removed()).toBe(0);
    expect(sim.work.issuesOf(notices.id)).toHaveLength(strays.length);
    const second = validReport(await run({ source: "schedule" }));
    expect(second.summary.notices).toMatchObject({ opened: 0, pending: strays.length });
    expect(sim.work.issuesOf(notices.id)).toHaveLength(strays.length);
  });

  it("runs dry on a console invocation with {}", async () => {
    const report = await (await coldEnforce<EnforceReport>())({});
    expect(report).toMatchObject({ dryRun: true, summary: { strays: strays.length, removed: 0 } });
    expect(report.actions.map((a) => `${a.kind === "project" ? a.projectId : a.sharedGroupId}:${a.groupId}`).sort()).toEqual(strays);
    expect(removed()).toBe(0);
  });

  it('applies on a console invocation that says { "dryRun": false }', async () => {
    const report = await (await coldEnforce<EnforceReport>())({ dryRun: false });
    expect(report).toMatchObject({ dryRun: false, summary: { removed: strays.length } });
  });

  it.each([
    [{ dryrun: false }, 'invalid event: unknown field "dryrun"'],
    [{ dryRun: "false" }, "invalid event: dryRun: expected boolean"],
    [{ source: "console" }, 'invalid event: source: expected "schedule"'],
    // The schedule never says dryRun: a dry run labelled the schedule's would count for the Heartbeat alarm and record a sweep.
    [{ source: "schedule", dryRun: true }, 'invalid event: dryRun: the schedule sends { "source": "schedule" } alone: leave out source for a person\'s run ({} is a dry run, { "dryRun": false } applies)'],
    [{ source: "schedule", dryRun: false }, 'invalid event: dryRun: the schedule sends { "source": "schedule" } alone'],
    [
      // The envelope the old EventBridge-rule Cron delivered; CronV2 does not.
      { version: "0", id: "53dc4d37", "detail-type": "Scheduled Event", source: "aws.events", account: "123456789012", time: "2025-01-01T00:00:00Z", region: "eu-west-1", resources: [], detail: {} },
      /^invalid event: source: expected "schedule"; unknown field "version"; unknown field "id"; unknown field "detail-type"/,
    ],
  ])("fails on %j naming the field, and calls nothing", async (event, message) => {
    await expect((await coldEnforce<EnforceReport>())(event)).rejects.toThrow(message);
    expect(sim.counters.requests).toBe(0);
    expect(world.secretsManager.reads).toHaveLength(0);
  });

  it("on a report-only stage, the schedule runs dry and a console run asking to apply is refused", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    const handler = await coldEnforce<EnforceReport>();
    await expect(handler({ source: "schedule" })).resolves.toMatchObject({ dryRun: true, summary: { strays: strays.length } });
    sim.resetCounters();
    await expect(handler({ dryRun: false })).rejects.toThrow('this stage is report-only (WARDEN_REPORT_ONLY=true): "dryRun": false is refused');
    expect(sim.counters.requests).toBe(0);
    expect(removed()).toBe(0);
  });

  it.each([[undefined], ["TRUE"], ["1"]])("fails closed: with WARDEN_REPORT_ONLY %j the stage is report-only, so the schedule runs dry", async (value) => {
    vi.stubEnv("WARDEN_REPORT_ONLY", value);
    const handler = await coldEnforce<EnforceReport>();
    await expect(handler({ source: "schedule" })).resolves.toMatchObject({ dryRun: true, summary: { strays: strays.length, removed: 0 } });
    const setting = value === undefined ? "WARDEN_REPORT_ONLY unset" : `WARDEN_REPORT_ONLY=${value}`;
    await expect(handler({ dryRun: false })).rejects.toThrow(`this stage is report-only (${setting}): "dryRun": false is refused`);
    expect(removed()).toBe(0);
  });

  it("runs on a GitLab-only deployment: a secret with gitlabToken alone, and no N8N_URL", async () => {
    world.secretsManager.secretString = JSON.stringify({ gitlabToken: SECRETS.gitlabToken });
    vi.stubEnv("N8N_URL", undefined);
    await expect((await coldEnforce<EnforceReport>())({ source: "schedule" })).resolves.toMatchObject({ dryRun: false, summary: { removed: strays.length } });
  });

  it("fails naming what is missing on a deployment without GitLab, before any request", async () => {
    world.secretsManager.secretString = JSON.stringify({ n8nApiKey: SECRETS.n8nApiKey });
    vi.stubEnv("GITLAB_URL", undefined);
    await expect((await coldEnforce<EnforceReport>())({})).rejects.toThrow("GitLab is not configured on this deployment: GITLAB_URL is not set, and the secret has no gitlabToken");
    expect(sim.counters.requests).toBe(0);
  });

  it("stops listing at the deadline and reports where it stopped, without removing anything", async () => {
    await sim.close();
    await startSim({ latencyMs: 300 });
    vi.resetModules();
    const { handler } = await import("../../functions/enforce.ts");
    // 10 s margin, so 1.2 s left gives the job the 1 s floor.
    const report = (await handler({ source: "schedule" } as never, lambdaContext({ remainingMs: 1_200 }))) as EnforceReport;
    expect(report.summary.complete).toBe(false);
    expect(report.warnings.join()).toMatch(/stopped while listing after \d+ projects \(the Lambda times out in 10 s\)/);
    expect(removed()).toBe(0);
  });
});

describe("enforce Lambda across a token rotation", () => {
  const ROTATED = "glpat-rotated-token";

  it("re-reads the secret once on a 401 at the first requests, and runs (and applies) with the new token", async () => {
    const handler = await coldEnforce<EnforceReport>();
    await handler({}); // the container now caches the old token
    await sim.close();
    await startSim({ tokens: { [ROTATED]: { admin: true } } });
    world.secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabToken: ROTATED });

    const report = await handler({ source: "schedule" });
    expect(report.summary.removed).toBe(strays.length);
    expect(world.secretsManager.reads).toHaveLength(2);
    // The token check, the administrator's read and the scope look-up, sent together.
    expect(sim.counters.status["401"]).toBe(3);
  });

  it("does not run again when the secret still holds the refused token", async () => {
    await sim.close();
    await startSim({ tokens: { [ROTATED]: { admin: true } } });
    await expect((await coldEnforce<EnforceReport>())({ source: "schedule" })).rejects.toThrow(/GET \/api\/v4\/user answered 401/);
    expect(world.secretsManager.reads).toHaveLength(2);
    expect(sim.counters.requests).toBe(3);
  });

  describe("after a 401 in the middle of the examination, with a new token in the secret", () => {
    beforeEach(async () => {
      await sim.close();
      // A group's detail: what carries the projects and the groups' shares.
      const detail401 = { kind: "status" as const, status: 401, route: "GET /groups/:id", times: 1 };
      await startSim({ tokens: { [SECRETS.gitlabToken]: { admin: true }, [ROTATED]: { admin: true } }, faults: [detail401] });
      world.secretsManager.queued.push(JSON.stringify(SECRETS));
      world.secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabToken: ROTATED });
    });

    it("a dry run runs once more with the new token", async () => {
      await expect((await coldEnforce<EnforceReport>())({})).resolves.toMatchObject({ dryRun: true, summary: { complete: true, strays: strays.length } });
      expect(world.secretsManager.reads).toHaveLength(2);
      expect(sim.counters.status["401"]).toBe(1);
    });

    it("an apply that had sent only reads runs once more with the new token too: nothing had changed", async () => {
      await expect((await coldEnforce<EnforceReport>())({ source: "schedule" })).resolves.toMatchObject({ dryRun: false, summary: { complete: true, removed: strays.length } });
      expect(world.secretsManager.reads).toHaveLength(2);
      expect(sim.counters.status["401"]).toBe(1);
    });
  });
});
