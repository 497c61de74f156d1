/**
 * One group GitLab fails to answer for, every time (a GitLab bug on one group happens): its detail
 * answers 500 after every retry. Before, the error failed the examination, the run, and every
 * scheduled run after it, so no stray anywhere in the organisation was removed again because of one
 * group. Now the run examines everything else, removes what it found stray there, names the group it
 * could not examine (report, warning, exit code 1), and the next run tries that group again.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, type EnforceOptions, type EnforceReport } from "../../../lib/jobs/index.ts";
import { escapeMarkdown, renderMarkdown, renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { MAX_UNEXAMINED } from "../../../lib/jobs/enforce/examine/unexamined.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions, type ShareIntent } from "../../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../../support/policies.ts";
import { validated } from "../../support/report.ts";
import { recordingSteps } from "../../support/steps.ts";
import { actionKeys, intentKey } from "../../support/share-keys.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

/** acme's organisation with group shares, its subgroup acme/mobile's detail answering 500 for ever (or `status`). */
async function brokenGroup(opts: GitLabSimOptions & { status?: number; message?: string } = {}) {
  const { dataset, intents } = generateOrganisation({ projects: 600, seed: 7, groupShares: true, now: NOW });
  const bad = dataset.groups.find((g) => g.full_path === "acme/mobile")!;
  const own = new Set(dataset.projects.filter((p) => p.path_with_namespace.toLowerCase() === `${bad.full_path}/${p.path}`.toLowerCase()).map((p) => p.id));
  // What only the broken detail shows: the shares the group makes, and its own projects' (its detail carries them).
  const hidden = (i: ShareIntent) => (i.kind === "group" ? i.sharedGroupId === bad.id : own.has(i.projectId));
  const strays = intents.filter((i) => i.intent === "stray");
  sim = await startGitLabSim({ dataset, ...opts, faults: [{ kind: "status", status: opts.status ?? 500, ...(opts.message ? { message: opts.message } : {}), method: "GET", path: `/api/v4/groups/${bad.id}`, times: 1_000_000 }] });
  const shared = dataset.projects.find((p) => own.has(p.id) && p.shared_with_groups.length > 0)!;
  return { bad, shared, reachable: strays.filter((i) => !hidden(i)).map(intentKey).sort(), hidden: strays.filter(hidden).map(intentKey).sort() };
}

function run(opts: Omit<Partial<EnforceOptions>, "policy"> & { policyText?: string } = {}, steps?: Parameters<typeof enforce>[1]): Promise<EnforceReport> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
  return validated(enforce({ gitlab, now: NOW, ...opts, policy: parsePolicy(opts.policyText ?? groupSharesPolicy(), "test.yaml") }, steps));
}

/**
 * The group named as not examined; by its path too where the listing that gave its id was read in the
 * same step (a step's frontier keeps ids only: in steps, whether it was depends on where a slice ended).
 */
function expectNamed(report: EnforceReport, bad: { id: number; full_path: string }, stepped = false) {
  const pathKnown = !stepped || report.unexamined?.[0]?.path !== undefined;
  const path = pathKnown ? { path: bad.full_path } : {};
  expect(report.unexamined).toEqual([{ kind: "group", id: bad.id, ...path, error: expect.stringMatching(/answered 500/), lasting: false, projects: "not examined" }]);
  expect(report.summary).toMatchObject({ complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`^group ${bad.id}${pathKnown ? ` \\(${bad.full_path}\\)` : ""} could not be examined: .*answered 500.*: its shares and its own projects' were not examined; the next run tries it again`)));
  expect(exitCode(report)).toBe(1);
}

it("a dry run with one subgroup's detail answering 500 for ever plans every stray elsewhere and names the group it could not examine", async () => {
  const { bad, reachable, hidden } = await brokenGroup();
  expect(hidden.length).toBeGreaterThan(3);
  const report = await run();
  expect(actionKeys(report.actions)).toEqual(reachable);
  expectNamed(report, bad);
  // Said in every rendering, as the warnings are.
  expect(renderText(report, { color: false })).toContain(`${bad.full_path}) could not be examined`);
  expect(renderText(report, { color: false })).toMatch(/Plan \(incomplete: 1 part of the scope could not be examined, see the warnings\)/);
  expect(renderMarkdown(report)).toContain(escapeMarkdown(`${bad.full_path}) could not be examined`));
  expect(JSON.stringify(renderSlack(report))).toContain(`${bad.full_path}) could not be examined`);
});

it("GitLab's words for the group reach the renderings escaped, as any server text does", async () => {
  const { bad } = await brokenGroup({ message: "\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 [here](https://evil.example) <!channel>" });
  const report = await run();
  expect(report.unexamined?.[0]?.error).toContain("[here](https://evil.example)");
  const text = renderText(report, { color: false });
  expect(text).toContain(`group ${bad.id} (${bad.full_path}) could not be examined`);
  expect(text).not.toContain("\u001b");
  expect(renderMarkdown(report)).not.toContain("[here](https://evil.example)");
  expect(JSON.stringify(renderSlack(report))).not.toContain("<!channel>");
});

it("an apply removes the strays elsewhere; the next run tries the group again and, GitLab mended, finds what it hid", async () => {
  const { bad, reachable, hidden } = await brokenGroup();
  const report = await run({ apply: true });
  expect(actionKeys(report.actions)).toEqual(reachable);
  expect(report.actions.every((a) => a.status === "done")).toBe(true);
  expect(report.summary.removed).toBe(reachable.length);
  expectNamed(report, bad);
  sim.clearFaults();
  const next = await run({ apply: true });
  expect(actionKeys(next.actions)).toEqual(hidden);
  expect(next.summary).toMatchObject({ complete: true, removed: hidden.length });
  expect(next.unexamined).toBeUndefined();
  expect(exitCode(next)).toBe(0);
});

it("in durable steps, cut short and crashed mid-examination, the group not examined survives the checkpoints and the strays elsewhere are removed", async () => {
  const { bad, reachable } = await brokenGroup({ latencyMs: 2 });
  const steps = recordingSteps({ sliceMs: 20, perStep: 5, crash: ["examine 2"] });
  const report = await run({ apply: true, listConcurrency: 4 }, steps);
  expect(steps.names.filter((n) => n.startsWith("examine ")).length).toBeGreaterThan(2);
  expect(steps.crashed).toEqual(["examine 2"]);
  expect(actionKeys(report.actions)).toEqual(reachable);
  expect(report.summary.removed).toBe(reachable.length);
  expectNamed(report, bad, true);
});

it("a 401 on one group's detail still fails the run: the token would be refused everywhere alike", async () => {
  await brokenGroup({ status: 401 });
  await expect(run({ apply: true })).rejects.toThrow(/answered 401/);
});

it("a rule that may match only in the group not examined is judged on what was examined: under unmatchedRules refuse, the apply removes nothing", async () => {
  const { shared } = await brokenGroup({ recordRequests: true });
  // An exemption for one of acme/mobile's own projects: only the broken detail would show that it matches.
  const policyText = groupSharesPolicy().replace('      - project: "acme/legacy/**"\n', `      - project: "acme/legacy/**"\n      - project: "${shared.path_with_namespace}"\n`);
  const report = await run({ apply: true, policyText });
  expect(report.summary).toMatchObject({ guard: "tripped", removed: 0, complete: false, unexamined: 1 });
  expect(report.warnings).toContainEqual(expect.stringMatching(/^the rules above were judged on what this run examined: 1 part of the scope could not be examined, where they may match$/));
  expect(report.warnings).toContainEqual(expect.stringMatching(/^guard: 1 rule matched nothing \(exempt\[1\]\), and gitlab.guard.unmatchedRules is refuse; nothing was removed/));
  expect(sim.requests.filter((r) => r.method !== "GET")).toEqual([]);
  expect(exitCode(report)).toBe(3);
  // GitLab mended, the rule matches: the same apply goes ahead.
  sim.clearFaults();
  const mended = await run({ apply: true, policyText });
  expect(mended.summary).toMatchObject({ guard: "ok", complete: true });
  expect(mended.summary.removed).toBeGreaterThan(0);
});

it("a group refused (a 403 on its detail) is named as lasting; a group gone (GitLab's 404 Group Not Found) is no part left unexamined, a proxy's bare 404 is", async () => {
  const { bad, reachable } = await brokenGroup({ status: 403 });
  const report = await run();
  expect(actionKeys(report.actions)).toEqual(reachable);
  expect(report.unexamined).toMatchObject([{ id: bad.id, lasting: true, error: expect.stringMatching(/answered 403/) }]);
  sim.clearFaults();
  sim.addFaults({ kind: "status", status: 404, message: "404 Group Not Found", method: "GET", path: `/api/v4/groups/${bad.id}`, times: 1_000_000 });
  const gone = await run();
  expect(gone.unexamined).toBeUndefined();
  expect(gone.summary.complete).toBe(true);
  sim.clearFaults();
  sim.addFaults({ kind: "status", status: 404, method: "GET", path: `/api/v4/groups/${bad.id}`, times: 1_000_000 });
  const bare = await run();
  expect(bare.unexamined).toMatchObject([{ id: bad.id, error: expect.stringMatching(/answered 404: 404 Not Found/) }]);
  expect(bare.summary.complete).toBe(false);
});

it("GitLab failing on every group's detail: the report names the first 100, counts them all, and says so in one more warning", async () => {
  const { dataset } = generateOrganisation({ projects: 1_500, seed: 5, tree: { groups: 130, maxDepth: 3 }, groupShares: true, now: NOW });
  const groups = dataset.groups.filter((g) => g.full_path === "acme" || g.full_path.startsWith("acme/")).length;
  expect(groups).toBeGreaterThan(MAX_UNEXAMINED);
  sim = await startGitLabSim({ dataset, faults: [{ kind: "status", status: 500, method: "GET", route: "GET /groups/:id", times: 1_000_000 }] });
  const report = await run();
  expect(report.summary).toMatchObject({ unexamined: groups, complete: false, groups: 0 });
  expect(report.unexamined).toHaveLength(MAX_UNEXAMINED);
  expect(report.warnings.filter((w) => / could not be examined: /.test(w))).toHaveLength(MAX_UNEXAMINED);
  expect(report.warnings).toContain(`${groups - MAX_UNEXAMINED} more parts of the scope could not be examined (the first ${MAX_UNEXAMINED} are named); the next run tries them again`);
});
