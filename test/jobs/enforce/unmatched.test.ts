/**
 * A rule that matches nothing is caught before it removes access (issue 21): a typo in an exemption
 * or an allow rule is named in a warning, and an applying run removes nothing while one exists.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, type EnforceReport } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { recordingSteps } from "../../support/steps.ts";
import { validated } from "../../support/report.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

/** The standard policy with an exemption's and an allow rule's paths mistyped, and a third rule naming the same missing group. */
export function typoPolicy(extra = ""): string {
  return (
    groupSharesPolicy()
      .replace('project: "acme/legacy/**"', 'project: "acme/legacyy/**"')
      .replace('group: "partners/contractor-x"', 'group: "partner/contractor-x"')
      .replace('      - group: "auditors"', '      - group: "partner/contractor-x"\n        groups: ["acme"]\n      - group: "auditors"') + extra
  );
}

const EXEMPT_TYPO = 'exempt[0] (project "acme/legacyy/**") matched no project share in scope';
const ALLOW_TYPO = 'allow[1] (group "partner/contractor-x", projects "acme/mobile/**") names group partner/contractor-x, which the instance does not have';
const SECOND_TYPO = 'allow[2] (group "partner/contractor-x", groups "acme") names group partner/contractor-x, which';

async function start(large = false) {
  const shape = large ? { projects: 3_000, tree: { groups: 60, maxDepth: 4, heavy: 0.6 } } : { projects: 400 };
  const { dataset } = generateOrganisation({ ...shape, seed: 11, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset, latencyMs: large ? 2 : 0 });
}

const shareCount = () => [...sim.dataset.projects, ...sim.dataset.groups].reduce((n, p) => n + p.shared_with_groups.length, 0);

function run(policy: string, apply = false, steps?: Parameters<typeof enforce>[1]): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(enforce({ gitlab, policy: parsePolicy(policy, "typo.yaml"), now: NOW, apply }, steps));
}

const hasWarning = (report: EnforceReport, text: string) => report.warnings.some((w) => w.startsWith(text));

describe("rules that match nothing", () => {
  it("a dry run names each, says whether a literal path exists, looks each path up once, and only reads", async () => {
    await start();
    await run(groupSharesPolicy());
    const scopeLookUps = sim.counters.byRoute["GET /namespaces/:id"] ?? 0;
    sim.resetCounters();
    const report = await run(typoPolicy());
    for (const text of [EXEMPT_TYPO, ALLOW_TYPO, SECOND_TYPO]) expect(hasWarning(report, text), text).toBe(true);
    expect(report.warnings.filter((w) => /^(allow|exempt)\[/.test(w))).toHaveLength(3);
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 3 rules matched nothing \(allow\[1\], allow\[2\], exempt\[0\]\).*an applying run would remove nothing/));
    expect(report.summary).toMatchObject({ guard: "ok", complete: true, matched: { exempt: [0, expect.any(Number)] } });
    expect(exitCode(report)).toBe(2);
    // partner/contractor-x once for both rules, and acme: the wildcard exemption is judged by what it matched.
    expect(sim.counters.byRoute["GET /namespaces/:id"]).toBe(scopeLookUps + 2);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("an apply trips the guard, naming each, and removes nothing", async () => {
    await start();
    const before = shareCount();
    const report = await run(typoPolicy(), true);
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(exitCode(report)).toBe(3);
    for (const text of [EXEMPT_TYPO, ALLOW_TYPO, SECOND_TYPO]) expect(hasWarning(report, text), text).toBe(true);
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 3 rules matched nothing .*nothing was removed \(.*gitlab\.guard\.unmatchedRules: warn/));
    expect(report.actions.length).toBeGreaterThan(0);
    expect(report.actions.every((a) => a.status === "planned")).toBe(true);
    expect(shareCount()).toBe(before);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("a literal path GitLab fails on for ever is named with GitLab's answer, and the run goes on: its rule matched nothing, so an apply is refused all the same", async () => {
    await start();
    sim.addFaults({ kind: "status", status: 500, method: "GET", path: "/api/v4/namespaces/partner%2Fcontractor-x", times: 1_000_000 });
    const report = await run(typoPolicy(), true);
    expect(hasWarning(report, 'allow[1] (group "partner/contractor-x", projects "acme/mobile/**") matched no ')).toBe(true);
    expect(hasWarning(report, 'allow[1] (group "partner/contractor-x", projects "acme/mobile/**") names group partner/contractor-x, which could not be looked up: GET /api/v4/namespaces/partner%2Fcontractor-x answered 500')).toBe(true);
    expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 3 rules matched nothing \(allow\[1\], allow\[2\], exempt\[0\]\).*nothing was removed/));
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
  });

  it("unmatchedRules: warn lets the apply remove, still naming each rule", async () => {
    await start();
    const report = await run(typoPolicy().replace("    maxRemovals: 1000\n", "    maxRemovals: 1000\n    unmatchedRules: warn\n"), true);
    expect(report.summary.guard).toBe("ok");
    expect(report.summary.removed).toBeGreaterThan(0);
    expect(report.summary.removed).toBe(report.actions.length);
    for (const text of [EXEMPT_TYPO, ALLOW_TYPO]) expect(hasWarning(report, text), text).toBe(true);
    expect(report.warnings.some((w) => w.startsWith("guard:"))).toBe(false);
  });

  it("an exemption whose until has passed does not count; every other rule of the standard policy matches", async () => {
    await start();
    const lapsed = groupSharesPolicy().replace('      - group: "acme/legacy/**"\n', '      - group: "acme/legacy/**"\n      - project: "acme/legacyy/**"\n        until: 2026-05-31\n');
    const report = await run(lapsed, true);
    expect(report.warnings.filter((w) => /^(allow|exempt)\[|^guard/.test(w))).toEqual([]);
    expect(report.summary).toMatchObject({ guard: "ok", matched: { exempt: [expect.any(Number), expect.any(Number), 0] } });
    expect(report.summary.removed).toBe(report.actions.length);
  });

  it("a run in steps carries each rule's count across them: the same warnings, the same counts", async () => {
    await start(true);
    const direct = await run(typoPolicy());
    const steps = recordingSteps({ sliceMs: 10, perStep: 25 });
    const stepped = await run(typoPolicy(), false, steps);
    expect(steps.names.filter((name) => name.startsWith("examine")).length).toBeGreaterThan(1);
    expect(steps.names).toContain("rules");
    expect(stepped.summary.matched).toEqual(direct.summary.matched);
    expect(stepped.warnings.filter((w) => /^(allow|exempt)\[/.test(w))).toEqual(direct.warnings.filter((w) => /^(allow|exempt)\[/.test(w)));
  });
});
