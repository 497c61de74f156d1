/**
 * The Watch function (functions/watch.ts) as the one-minute schedule invokes it, against the GitLab
 * simulator, dynalite (its cursor and lease in the claims table) and a loopback Secrets Manager: the
 * first invocation stores the newest event's id, later ones remove what was shared meanwhile; the
 * cursor survives a new container; two overlapping invocations never both move it; a report-only
 * stage only reads; GitLab Free fails the invocation naming the tier, changing nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import { dynamoWatchCursor } from "../../functions/shared/state/watch-cursor.ts";
import { EVENTS_PER_POLL } from "../../lib/jobs/watch/index.ts";
import type { WatchResult } from "../../functions/watch.ts";
import { validReport } from "../support/report.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";
import { emfRecords } from "../support/emf.ts";
import { captureLogs, lambdaContext, SECRETS } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const world = lambdaWorld({ dynamo: true, policy: watchPolicyText() });
let sim: GitLabSim;

/** Each test's simulator, with its options, and the rest of its environment. */
async function start(opts: GitLabSimOptions = {}, env: Record<string, string | undefined> = { WARDEN_REPORT_ONLY: "false" }) {
  sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS, ...opts });
  for (const [name, value] of Object.entries({ GITLAB_URL: sim.url, ...env })) vi.stubEnv(name, value);
}
beforeEach(() => vi.resetModules());
afterEach(() => sim.close());

/** The handler of a fresh container (its module state, the cached sources, new). */
async function coldWatch(): Promise<(requestId?: string) => Promise<WatchResult>> {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return (requestId) => handler({ source: "schedule" } as never, lambdaContext(requestId ? { requestId } : {})) as Promise<WatchResult>;
}

const stored = () => dynamoWatchCursor({ client: world.dynamo.client(), table: () => world.table }).read();
const nonGet = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("Watch function", () => {
  it("first stores the newest event; each later invocation removes what was shared since, in a new container too, and reports the seconds to removal", async () => {
    await start();
    await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners); // before: the daily run's
    const first = await (await coldWatch())();
    expect(first).toEqual({ polled: "started", events: 0 });
    const newest = sim.auditEvents.at(-1)!;
    expect(await stored()).toEqual({ cursor: { version: 2, sources: { instance: { id: newest.id, at: newest.created_at } }, retries: {} }, revision: 1 });

    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    const logs = captureLogs();
    let report;
    let lines;
    try {
      report = validReport((await (await coldWatch())()) as Extract<WatchResult, { job: string }>);
      lines = logs.lines();
    } finally {
      logs.restore();
    }
    expect(report).toMatchObject({ dryRun: false, events: [{ subject: `project:${IDS.app}` }], actions: [{ projectId: IDS.app, status: "done", addedBy: { username: "jane" } }] });
    expect(allShares(sim)).toEqual([`p${IDS.api}:${IDS.partners}`]);
    expect(await stored()).toMatchObject({ cursor: { sources: { instance: { id: report.events[0]!.id } } }, revision: 2 });
    // An audit line for the removal, and the seconds from the share's event to it, as an EMF metric of the watch.
    expect(lines.some((l) => l["message"] === "remove-share" && l["projectId"] === IDS.app)).toBe(true);
    const timing = emfRecords(lines).find((r) => "SecondsToRemoval" in r)!;
    expect(timing).toMatchObject({ trigger: "watch", job: "enforce", _aws: { CloudWatchMetrics: [{ Namespace: "Warden", Metrics: [{ Name: "SecondsToRemoval", Unit: "Seconds" }] }] } });
    expect(timing["SecondsToRemoval"]).toBeGreaterThanOrEqual(0);
    expect(timing["SecondsToRemoval"]).toBeLessThan(30);
    // How far behind the cursor is, each poll: caught up.
    expect(emfRecords(lines).find((r) => "WatchCursorAgeSeconds" in r)).toMatchObject({ trigger: "watch", job: "enforce", WatchCursorAgeSeconds: 0 });

    sim.resetCounters();
    expect(await (await coldWatch())()).toEqual({ polled: "nothing new", events: 0 });
    expect(sim.counters.byRoute["GET /audit_events"]).toBe(1);
  });

  it("two overlapping invocations: one polls, the other stops at the lease; a stale cursor write is refused", async () => {
    await start();
    await (await coldWatch())();
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const invoke = await coldWatch();
    const results = await Promise.all([invoke("req-a"), invoke("req-b")]);
    expect(results.filter((r) => "polled" in r && r.polled === "busy")).toHaveLength(1);
    expect(results.filter((r) => "job" in r)).toHaveLength(1);
    expect((await stored())!.revision).toBe(2);
    // The conditional write itself: a write naming a revision another has since replaced changes nothing.
    const store = dynamoWatchCursor({ client: world.dynamo.client(), table: () => world.table });
    const stale = { version: 2 as const, sources: { instance: { id: 99 } }, retries: {} };
    expect(await store.write(stale, 1)).toBe(false);
    expect(await store.write(stale, 0)).toBe(false);
    expect(await stored()).toMatchObject({ cursor: { version: 2, sources: { instance: { id: sim.auditEvents.at(-1)!.id } } }, revision: 2 });
  });

  it("a report-only stage watches dry: only GETs, the share stays, the cursor moves", async () => {
    await start({}, { WARDEN_REPORT_ONLY: undefined });
    await (await coldWatch())();
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    sim.resetCounters();
    const report = (await (await coldWatch())()) as Extract<WatchResult, { job: string }>;
    expect(report).toMatchObject({ dryRun: true, actions: [{ status: "planned" }] });
    expect(nonGet()).toEqual([]);
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
    expect((await stored())!.revision).toBe(2);
  });

  it("a policy in a GitLab repository is read once a poll, as every run's start is read once (the summary setting from that same read)", async () => {
    await start();
    const tool = sim.dataset.projects.find((p) => p.id === IDS.tool)!;
    sim.repositories.commit(tool, { "warden.yaml": watchPolicyText() });
    vi.stubEnv("WARDEN_POLICY_PROJECT", tool.path_with_namespace);
    const files = () => sim.counters.byRoute["GET /projects/:id/repository/files/:file_path"] ?? 0;
    const watch = await coldWatch();
    expect(await watch()).toEqual({ polled: "started", events: 0 });
    expect(files()).toBe(1);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    sim.resetCounters();
    const report = (await watch()) as Extract<WatchResult, { job: string }>;
    expect(report.actions).toMatchObject([{ projectId: IDS.app, status: "done" }]);
    expect(report.policy).toMatchObject({ source: "gitlab", project: "other/tool" });
    expect(files()).toBe(1);
  });

  it("a token GitLab refuses (401) is not kept: once the secret is rotated, the same container's next poll reads it and goes on", async () => {
    const { "glpat-sim-admin": _refused, ...others } = WATCH_TOKENS;
    await start({ tokens: { ...others, "glpat-rotated-token": { admin: true } } });
    const watch = await coldWatch();
    await expect(watch()).rejects.toThrow(/401/);
    const reads = world.secretsManager.reads.length;
    world.secretsManager.secretString = JSON.stringify({ ...SECRETS, gitlabToken: "glpat-rotated-token" });
    try {
      expect(await watch()).toEqual({ polled: "started", events: 0 });
    } finally {
      world.secretsManager.secretString = JSON.stringify(SECRETS);
    }
    expect(world.secretsManager.reads.length).toBe(reads + 1);
  });

  it("GitLab Free: the invocation fails naming the tier; no cursor is stored and nothing changes", async () => {
    await start({ tier: "free" });
    await expect((await coldWatch())()).rejects.toThrow(/GitLab Free does not have/);
    expect(await stored()).toBeUndefined();
    expect(nonGet()).toEqual([]);
  });
});

describe("Watch function on a bad day (issue 29)", () => {
  it("a share GitLab refuses to remove is reported by one invocation and passed; the strays made after it go at the next", async () => {
    await start({ faults: [{ kind: "status", status: 403, method: "DELETE", path: `/api/v4/projects/${IDS.app}/share/${IDS.partners}`, times: 1_000 }] });
    await (await coldWatch())();
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const refused = (await (await coldWatch())()) as Extract<WatchResult, { job: string }>;
    expect(refused.actions).toMatchObject([{ projectId: IDS.app, status: "failed" }]);
    expect(refused.warnings.join("\n")).toMatch(/not tried again: the share of project acme\/app with group partners/);
    for (const [path, group] of [[`/projects/${IDS.api}/share`, IDS.partners], [`/groups/${IDS.team}/share`, IDS.other]] as const) {
      await share(sim, "jane", path, group);
      const next = (await (await coldWatch())()) as Extract<WatchResult, { job: string }>;
      expect(next.actions.map((a) => a.status)).toEqual(["done"]);
    }
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
    expect(await (await coldWatch())()).toEqual({ polled: "nothing new", events: 0 });
  });

  it("a cursor stored far behind drains the bound at a time, each invocation saying how far behind it is", async () => {
    const dataset = watchWorld();
    const base = Date.now() - 86_400_000;
    dataset.auditEvents = Array.from({ length: 4_000 }, (_, i) => ({ id: i + 1, author_id: 5, entity_id: 5, entity_type: "User" as const, event_name: "user_logged_in", details: {}, created_at: new Date(base + i * 15_000).toISOString() }));
    await start({ dataset });
    const store = dynamoWatchCursor({ client: world.dynamo.client(), table: () => world.table });
    await store.write({ version: 2, sources: { instance: { id: 1, at: dataset.auditEvents[0]!.created_at } }, retries: {} }, 0);
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    const ages: number[] = [];
    for (let i = 0; i < 10 && (await stored())!.cursor.sources["instance"]!.id < 4_000; i++) {
      const logs = captureLogs();
      let result;
      try {
        result = await (await coldWatch())();
        ages.push(Number(emfRecords(logs.lines()).find((r) => "WatchCursorAgeSeconds" in r)!["WatchCursorAgeSeconds"]));
      } finally {
        logs.restore();
      }
      expect(result).toMatchObject({ polled: "nothing new" });
      expect((result as { events: number }).events).toBeLessThanOrEqual(EVENTS_PER_POLL);
    }
    expect((await stored())!.cursor.sources["instance"]!.id).toBe(4_000);
    expect(ages.length).toBeGreaterThanOrEqual(4);
    expect(ages[0]).toBeGreaterThan(3_600);
    expect(ages.at(-1)).toBe(0);
  });
});
