/**
 * A policy change judged share by share in one examination (enforce's compareWith, issue 22 point 2),
 * against the loopback simulator: each section exactly, no request beyond a plain dry run's, the exit
 * codes, and never a removal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, type EnforceOptions } from "../../../lib/jobs/index.ts";
import { noteBody } from "../../../lib/jobs/enforce/mr-note.ts";
import { NOTE_MARKER, renderMarkdown, renderSlack } from "../../../lib/jobs/render/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { registerSecret } from "../../../lib/redact/index.ts";
import { startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { BASE, compareWorld, EXPECTED, PROPOSED, shareName } from "../../support/compare-world.ts";
import { validated } from "../../support/report.ts";
import { recordingSteps } from "../../support/steps.ts";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const fromGitLab = (text: string) => parsePolicy(text, "base", { source: "gitlab", project: "security/policies", path: "warden.yaml", ref: "main", commitId: COMMIT });

let sim: GitLabSim;
beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld() });
});
afterAll(() => sim.close());

function run(opts: Partial<EnforceOptions> = {}, steps?: Parameters<typeof enforce>[1]) {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(enforce({ gitlab, policy: parsePolicy(PROPOSED, "warden.yaml"), ...opts }, steps));
}

const sections = (report: Awaited<ReturnType<typeof run>>) => {
  const c = report.comparison!;
  return { newlyRemoved: c.newlyRemoved.map(shareName).sort(), noLongerRemoved: c.noLongerRemoved.map(shareName).sort(), exemptionChanged: c.exemptionChanged.map(shareName).sort() };
};
const sorted = (e: typeof EXPECTED) => ({ newlyRemoved: [...e.newlyRemoved].sort(), noLongerRemoved: [...e.noLongerRemoved].sort(), exemptionChanged: [...e.exemptionChanged].sort() });

describe.sequential("enforce comparing a proposed policy with its base", () => {
  it("lists exactly the shares whose fate the change alters, each once, and no stray both policies remove", async () => {
    const report = await run({ compareWith: fromGitLab(BASE) });
    expect(sections(report)).toEqual(sorted(EXPECTED));
    expect(report.comparison).toMatchObject({ baseRef: "main", baseCommitId: COMMIT });
    // The plan is the proposed policy's, the unchanged stray (api ← strangers) in it but not in the comparison.
    expect(report.actions.map(shareName)).toContain("project acme/app/api ← strangers");
    const { newlyRemoved, noLongerRemoved, exemptionChanged } = report.comparison!;
    expect(newlyRemoved.every((a) => a.status === "planned" && a.accessLevelName === "developer")).toBe(true);
    expect([...noLongerRemoved, ...exemptionChanged].every((a) => a.status === "skipped")).toBe(true);
    const reason = (name: string) => [...newlyRemoved, ...noLongerRemoved, ...exemptionChanged].find((a) => shareName(a) === name)!.reason;
    expect(reason("project acme/legacy/old ← partners/x")).toMatch(/^no allow rule matches group partners\/x .*\(the base policy exempts it \(exempt\[0\] acme\/legacy\/\*\*\)\)$/);
    expect(reason("project acme/app/web ← strangers")).toMatch(/^Exempts it \(exempt\[0\] acme\/app\/web\) \(the base policy removes it: /);
    expect(reason("project acme/app/web ← acme/legacy")).toBe("exemption newly applies: the proposed policy exempts it (exempt[0] acme/app/web) (the base policy allows it (allow[0] acme/**))");
    expect(reason("project acme/legacy/old ← acme/app")).toBe("exemption lapses: the proposed policy allows it (allow[0] acme/**) (the base policy exempts it (exempt[0] acme/legacy/**))");
    expect(exitCode(report)).toBe(2);
    expect(Object.keys(sim.counters.byRoute).filter((r) => !r.startsWith("GET "))).toEqual([]);
    // Slack-safe: the comparison replaces the plan's blocks, every name mrkdwn-escaped.
    const slack = JSON.stringify(renderSlack(report).blocks);
    expect(slack).toContain("Merging this policy change would newly remove 3 shares, stop removing 3, change 2 exemptions, and changes gitlab.shares.allow, gitlab.shares.exempt: review them in the diff.");
    expect(slack).toContain("&lt;b&gt;～bold&lt;/b&gt;");
    expect(slack).not.toContain("<b>");
  });

  it("sends exactly the requests of a plain dry run, route by route", async () => {
    sim.resetCounters();
    await run();
    const plain = { ...sim.counters.byRoute };
    sim.resetCounters();
    const compared = await run({ compareWith: fromGitLab(BASE) });
    expect(sections(compared)).toEqual(sorted(EXPECTED));
    expect(sim.counters.byRoute).toEqual(plain);
  });

  it("exit 0 when the change alters nothing, though both policies find strays", async () => {
    const report = await run({ compareWith: fromGitLab(PROPOSED) });
    expect(report.actions.length).toBeGreaterThan(0);
    expect(sections(report)).toEqual({ newlyRemoved: [], noLongerRemoved: [], exemptionChanged: [] });
    expect(exitCode(report)).toBe(0);
  });

  it("refuses to apply, before any request", async () => {
    sim.resetCounters();
    await expect(run({ compareWith: fromGitLab(BASE), apply: true })).rejects.toThrow(/never removes: run it without --apply/);
    expect(sim.counters.requests).toBe(0);
  });

  it("in steps of a few shares (a durable execution), each slice records its differences and the comparison is the same", async () => {
    const steps = recordingSteps({ sliceMs: 60_000, perStep: 2 });
    const report = await run({ compareWith: fromGitLab(BASE), listConcurrency: 1 }, steps);
    expect(steps.names.filter((n) => n.startsWith("examine")).length).toBeGreaterThan(1);
    expect(sections(report)).toEqual(sorted(EXPECTED));
  });
});

describe("the merge request note's body", () => {
  it("is redacted like every output, starts with the marker, and is cut to GitLab's 1,000,000 characters", () => {
    registerSecret("glpat-compare-secret-0001");
    const body = noteBody(`${NOTE_MARKER}\nleaked glpat-compare-secret-0001 here`);
    expect(body).not.toContain("glpat-compare-secret-0001");
    expect(body.startsWith(`${NOTE_MARKER}\n`)).toBe(true);
    expect(noteBody("no marker").startsWith(`${NOTE_MARKER}\nno marker`)).toBe(true);
    const long = noteBody("x".repeat(2_000_000));
    expect(long.length).toBe(1_000_000);
    expect(long.endsWith("(the JSON report, --format json, has everything).")).toBe(true);
  });

  // Every share is stray under both policies: judged by verdict alone, the note said the change altered
  // no share's fate, and every run after the merge removed none of them.
  it("a change of onStray to report lists every stray as no longer removed; back to remove, as newly removed", async () => {
    const plain = await run({ policy: parsePolicy(BASE, "warden.yaml") });
    const today = plain.actions.map(shareName).sort();
    expect(today.length).toBeGreaterThan(0);
    const reporting = BASE.replace("  guard: { unmatchedRules: warn }", "    onStray: report\n  guard: { unmatchedRules: warn }");
    const stopped = await run({ policy: parsePolicy(reporting, "warden.yaml"), compareWith: fromGitLab(BASE) });
    expect(sections(stopped)).toEqual({ newlyRemoved: [], noLongerRemoved: today, exemptionChanged: [] });
    expect(stopped.comparison!.noLongerRemoved[0]!.reason).toBe("Stray under both: the proposed policy only reports it, never removing it (onStray report, gitlab.shares) (the base policy removes it at once (onStray remove, gitlab.shares))");
    expect(exitCode(stopped)).toBe(2);
    const resumed = await run({ policy: parsePolicy(BASE, "warden.yaml"), compareWith: fromGitLab(reporting) });
    expect(sections(resumed)).toEqual({ newlyRemoved: today, noLongerRemoved: [], exemptionChanged: [] });
  });

  it("an override that reports one group's strays lists that group's only", async () => {
    const plain = await run({ policy: parsePolicy(BASE, "warden.yaml") });
    const proposed = BASE.replace("  scope: { groups: [acme] }", "  scope: { groups: [acme], overrides: [{ group: acme/app, onStray: report }] }");
    const report = await run({ policy: parsePolicy(proposed, "warden.yaml"), compareWith: fromGitLab(BASE) });
    expect(sections(report).noLongerRemoved).toEqual(plain.actions.map(shareName).filter((name) => name.includes("acme/app")).sort());
  });

  // The warnings go on the merge request, for its author: a path's look-up with the run's token would
  // word a rule naming a group the instance has (private ones included) unlike one naming none.
  it("its warnings do not tell the merge request's author whether a path it names exists", async () => {
    const probe = (path: string) =>
      parsePolicy(BASE.replace('      - group: "evil/**"\n', `      - group: "evil/**"\n      - group: "${path}"\n        projects: ["acme/app/api"]\n`), "warden.yaml");
    // `security` is a group of the instance; `security-nope` is not.
    const hidden = (await run({ policy: probe("security"), compareWith: fromGitLab(BASE) })).warnings.find((w) => w.includes('"security"'));
    const absent = (await run({ policy: probe("security-nope"), compareWith: fromGitLab(BASE) })).warnings.find((w) => w.includes('"security-nope"'));
    expect(hidden).toMatch(/matched no .* in scope$/);
    expect(hidden!.replaceAll("security", "X")).toBe(absent!.replaceAll("security-nope", "X"));
  });

  // The part of the base's scope the proposed one drops is examined all the same: its strays are left
  // out of scope, never removed, which the merge request's reviewers must see.
  it("narrowing gitlab.scope lists the strays it stops removing", async () => {
    const plain = await run({ policy: parsePolicy(BASE, "warden.yaml") });
    const proposed = BASE.replace("  scope: { groups: [acme] }", "  scope: { groups: [acme/legacy] }");
    const report = await run({ policy: parsePolicy(proposed, "warden.yaml"), compareWith: fromGitLab(BASE) });
    const dropped = plain.actions.map(shareName).filter((name) => !name.includes("acme/legacy")).sort();
    expect(dropped.length).toBeGreaterThan(0);
    expect(sections(report).noLongerRemoved).toEqual(dropped);
  });
});

/**
 * A merge request that changes what Warden does outside the shares' fates (who may start pipelines with
 * Warden's identity, on refs anyone may push; who may apply from Slack; the guard) was summed up as
 * changing nothing: "would change no share's fate", exit 0, a green job (the second inputs review's
 * finding). It names those settings now, for the reviewer to read in the diff, and exits 2.
 */
const WITH_CHAT = `${PROPOSED}chatops:
  slack:
    users: ["U0REVIEWER", "U0ATTACKER"]
    applyUsers: ["U0REVIEWER"]
`;

/** WITH_CHAT with no share rule touched: only who may start pipelines, who may apply from chat, and the guard. */
const WIDENED = `${PROPOSED.replace("  guard: { unmatchedRules: warn }\n", "  guard: { unmatchedRules: warn, maxRemovals: 1000000000000 }\n")}pipelines:
  allow:
    - project: "**"
      refs: ["*", "**"]
      unprotected: true
chatops:
  slack:
    users: ["U0REVIEWER", "U0ATTACKER"]
    applyUsers: ["U0REVIEWER", "U0ATTACKER"]
`;

describe("a policy change outside the shares' fates", () => {
  it("is not summed up as changing nothing: the note names the changed sections, and the job does not exit 0", async () => {
    const report = await run({ policy: parsePolicy(WIDENED, "warden.yaml"), compareWith: fromGitLab(WITH_CHAT) });
    expect(report.comparison?.otherChanges).toEqual(["chatops.slack.applyUsers", "gitlab.guard.maxRemovals", "pipelines"]);
    const note = renderMarkdown(report);
    expect(note).toContain("### Merging this policy change would change no share\\'s fate\\, and changes chatops\\.slack\\.applyUsers\\, gitlab\\.guard\\.maxRemovals\\, pipelines\\: review them in the diff\\.");
    expect(exitCode(report)).toBe(2);
    // The same policy compared with itself changes nothing, and says so.
    const same = await run({ policy: parsePolicy(WITH_CHAT, "warden.yaml"), compareWith: fromGitLab(WITH_CHAT) });
    expect(same.comparison?.otherChanges).toBeUndefined();
    expect(exitCode(same)).toBe(0);
  });

  // Nor one whose effect today's shares do not show (a review of the change's findings): the examination covers the
  // base's scope only, so the strays of a group the change adds are never listed; and an exemption's `until`
  // moved to 2099 changes no share's fate today, while the base would remove the share the day after its old date.
  it.each([
    ["a group added to gitlab.scope", PROPOSED.replace("  scope: { groups: [acme] }\n", "  scope: { groups: [acme, outside] }\n"), "gitlab.scope.groups"],
    ["an exemption's until moved to 2099", PROPOSED.replace('      - project: "acme/app/web"\n', '      - project: "acme/app/web"\n        until: 2099-12-31\n'), "gitlab.shares.exempt"],
  ])("%s is named, and exits 2", async (_change, changed, path) => {
    expect(changed).not.toBe(PROPOSED);
    const report = await run({ policy: parsePolicy(changed, "warden.yaml"), compareWith: fromGitLab(PROPOSED) });
    expect(report.comparison?.otherChanges).toEqual([path]);
    expect(exitCode(report)).toBe(2);
  });
});
