/**
 * Issue 28 point 3: the daily sweep (the Enforce function, a full run) refuses a glob rule that matches
 * nothing, but the watch sees one project at a time and cannot tell. The sweep remembers what it found
 * (functions/shared/state/last-sweep.ts) and the Watch function and the Worker's stream runs refuse it too, under the same policy:
 * before this, the watch removed share after share under the typo, each poll under maxRemovals. Likewise
 * a sweep that planned more removals than maxRemovals: a forged stream event a subject undid that guard.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { dynamoLastSweep } from "../../../functions/shared/state/last-sweep.ts";
import type { WatchResult } from "../../../functions/watch.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../../support/watch-world.ts";
import { coldEnforce, lambdaContext, writePolicy } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

/** Partners may have the team's projects; the glob is mistyped (acme/teem), so the rule matches nothing anywhere. */
const policyText = (projects: string, maxRemovals = 100) => `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners"
        projects: ["${projects}"]
  guard: { maxRemovals: ${maxRemovals}, unmatchedRules: refuse }
  watch: { maxRequestsPerHour: 3600 }
`;

const world = lambdaWorld({ dynamo: true, gitlab: () => ({ dataset: watchWorld(), tokens: WATCH_TOKENS }), env: () => ({ WARDEN_REPORT_ONLY: "false" }) });
beforeEach(() => vi.resetModules());

async function usePolicy(text: string) {
  vi.stubEnv("WARDEN_POLICY", await writePolicy(text));
}

async function coldWatch(): Promise<WatchResult> {
  vi.resetModules();
  const { handler } = await import("../../../functions/watch.ts");
  return (await handler({ source: "schedule" } as never, lambdaContext())) as WatchResult;
}

const report = (result: WatchResult) => {
  if (!("job" in result)) throw new Error(`no batch: ${JSON.stringify(result)}`);
  return result;
};

describe("the rules the last full run found matching nothing, in the Watch function and the Worker", () => {
  it("the watch and a stream subject refuse a glob typo the sweep found, naming the rule and the sweep; after the fix the watch removes the stray", async () => {
    const typo = policyText("acme/teem/**");
    await usePolicy(typo);
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.team); // allowed: acme/** matches
    const sweep = await (await coldEnforce())({ source: "schedule" });
    expect(sweep.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[1\]\)/));
    const remembered = await dynamoLastSweep({ client: world.dynamo.client(), table: () => world.table }).read();
    expect(remembered).toEqual({ policySha256: sweep.policy!.sha256, unmatched: ["allow[1]"], at: sweep.startedAt });

    expect(await coldWatch()).toEqual({ polled: "started", events: 0 });
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners); // stray under the typo, and under the fix
    const refused = report(await coldWatch());
    expect(refused.actions).toMatchObject([{ projectId: IDS.app, group: "partners", status: "planned" }]);
    expect(refused.warnings).toContainEqual(expect.stringContaining(`allow[1] (group "partners", projects "acme/teem/**") matched nothing in the last full run (${sweep.startedAt})`));
    expect(refused.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(allow\[1\]\), and gitlab\.guard\.unmatchedRules is refuse; nothing was removed/));
    expect(refused.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(allShares(world.gitlab)).toEqual([`p${IDS.app}:${IDS.team}`, `p${IDS.app}:${IDS.partners}`]);
    // The Worker's run for the same subject, as the Events stream hands it over, refuses it too.
    vi.resetModules();
    const { handler: worker } = await import("../../../functions/worker.ts");
    const subject = { kind: "subject", subject: { kind: "project", id: IDS.app }, events: [{ id: "9001", name: "project_group_link_created", createdAt: new Date().toISOString() }], correlationId: "req-events-1:project:100" };
    expect(await worker(subject as never, lambdaContext({ functionName: "warden-test-Worker" }))).toEqual({ subject: `project ${IDS.app}`, ran: true, removed: 0 });
    expect(allShares(world.gitlab)).toEqual([`p${IDS.app}:${IDS.team}`, `p${IDS.app}:${IDS.partners}`]);

    // The fix is another policy: the sweep's finding does not hold for it, and the next event's subject is enforced.
    await usePolicy(policyText("acme/team/**"));
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.other);
    const fixed = report(await coldWatch());
    expect(fixed.warnings.filter((w) => w.startsWith("guard:") || w.includes("last full run"))).toEqual([]);
    expect(fixed.summary).toMatchObject({ guard: "ok", failed: 0, removed: 2 });
    expect(allShares(world.gitlab)).toEqual([`p${IDS.app}:${IDS.team}`]);
  });

  it("a sweep that planned more than maxRemovals holds the watch and the stream too, each run of a few subjects under the guard on its own; a policy that mends it lets them remove again", async () => {
    // Both rules match a share; app's two strays are more than the guard allows (a rule lost, say).
    await usePolicy(policyText("acme/team/**", 1));
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.team);
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.other);
    const sweep = await (await coldEnforce())({ source: "schedule" });
    expect(sweep.summary).toMatchObject({ guard: "tripped", removed: 0, strays: 2 });
    const remembered = await dynamoLastSweep({ client: world.dynamo.client(), table: () => world.table }).read();
    expect(remembered).toEqual({ policySha256: sweep.policy!.sha256, unmatched: [], at: sweep.startedAt, tooMany: true });

    // api's one stray is within maxRemovals: the guard judged on the batch alone would pass it.
    expect(await coldWatch()).toEqual({ polled: "started", events: 0 });
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.other);
    const held = report(await coldWatch());
    expect(held.summary).toMatchObject({ guard: "tripped", removed: 0, strays: 1 });
    expect(held.warnings).toContainEqual(`guard: the last full run (${sweep.startedAt}), under this same policy, planned more removals than gitlab.guard.maxRemovals allows, so this run removes nothing either; review the policy, then run warden enforce (a full run that passes the guard lets the watch and the events remove again)`);
    // And the Worker's run for the same subject, as the Events stream hands it over (a forged event would do).
    vi.resetModules();
    const subjectRun = async () => {
      const { handler: worker } = await import("../../../functions/worker.ts");
      const subject = { kind: "subject", subject: { kind: "project", id: IDS.api }, events: [{ id: "9002", name: "project_created", createdAt: new Date().toISOString() }], correlationId: `req-events-${Date.now()}:project:${IDS.api}` };
      return worker(subject as never, lambdaContext({ functionName: "warden-test-Worker" }));
    };
    expect(await subjectRun()).toEqual({ subject: `project ${IDS.api}`, ran: true, removed: 0 });
    const before = [`p${IDS.app}:${IDS.team}`, `p${IDS.app}:${IDS.partners}`, `p${IDS.app}:${IDS.other}`, `p${IDS.api}:${IDS.partners}`];
    expect(allShares(world.gitlab)).toEqual([...before, `p${IDS.api}:${IDS.other}`]);

    // A policy that mends it (the limit raised) is another policy: the sweep's count does not hold for it.
    await usePolicy(policyText("acme/team/**", 10));
    vi.resetModules();
    expect(await subjectRun()).toEqual({ subject: `project ${IDS.api}`, ran: true, removed: 1 });
    expect(allShares(world.gitlab)).toEqual(before);
  });

  it("the Enforce function remembers the removals GitLab refused, and its next sweep removes a new stray past them (maxRemovals 1)", async () => {
    // The share of app with partners is refused every time (a 403); a policy whose guard allows one removal a run.
    world.gitlab.addFaults({ kind: "status", status: 403, method: "DELETE", path: `/api/v4/projects/${IDS.app}/share/${IDS.partners}`, times: 1_000_000 });
    await usePolicy(watchPolicyText({ maxRemovals: 1 }));
    await share(world.gitlab, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const first = await (await coldEnforce())({ source: "schedule" });
    expect(first.summary).toMatchObject({ guard: "ok", failed: 1 });
    const remembered = await dynamoLastSweep({ client: world.dynamo.client(), table: () => world.table }).read();
    expect(remembered?.refused).toEqual([`project:${IDS.app}:${IDS.partners}`]);

    // Before, the refused share counted again: 2 > 1, the guard tripped, and so on every day after.
    await share(world.gitlab, "jane", `/projects/${IDS.api}/share`, IDS.partners);
    const second = await (await coldEnforce())({ source: "schedule" });
    expect(second.summary).toMatchObject({ guard: "ok", removed: 1, failed: 1 });
    expect(allShares(world.gitlab)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  });

  it("a sweep keeps a rule as matching nothing only where the record before, under the same policy, says so too: a rule that matched once is no typo", async () => {
    const store = dynamoLastSweep({ client: world.dynamo.client(), table: () => world.table });
    await store.write({ policySha256: "a", unmatched: ["allow[1]"], at: "2026-03-09T00:00:00.000Z" });
    // Today's sweep could not read the part where exempt[0] matched yesterday, or what it matched is gone: it names both.
    await store.write({ policySha256: "a", unmatched: ["allow[1]", "exempt[0]"], at: "2026-03-10T00:00:00.000Z" });
    expect(await store.read()).toEqual({ policySha256: "a", unmatched: ["allow[1]"], at: "2026-03-10T00:00:00.000Z" });
    // Under another policy, what it found stands whole (the safe side), and narrows from there.
    await store.write({ policySha256: "b", unmatched: ["exempt[0]"], at: "2026-03-11T00:00:00.000Z" });
    expect((await store.read())?.unmatched).toEqual(["exempt[0]"]);
    await store.write({ policySha256: "b", unmatched: [], at: "2026-03-12T00:00:00.000Z" });
    expect((await store.read())?.unmatched).toEqual([]);
  });
});
