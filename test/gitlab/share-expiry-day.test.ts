/**
 * A share whose expires_at GitLab (or a proxy in front of it) gives as a timestamp. The answer check took
 * any expiry that starts with a date and the policy judged its day, but plans, reports and audit lines
 * carried the timestamp to readers that take a date only: `warden apply` refused the whole reviewed plan,
 * and `warden restore` the whole audit log of the run that removed it (the plan13 review). The expiry is
 * taken by its day where the answer is read (lib/gitlab/answer-shapes.ts); a date followed by anything but
 * a time is refused there as a bad answer.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce, parseRestoreText, planFile, readPlanFile } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import { afterTest } from "../support/cleanup.ts";
import { EVERYTHING_STRAY, groupSharesPolicy } from "../support/policies.ts";
import { client, setup, sim } from "../support/restore-world.ts";
import { actionKey } from "../support/share-keys.ts";

describe("a share's expiry given as a timestamp", () => {
  it("a plan enforce --out writes, one of whose shares has a timestamp expiry, is a plan warden apply reads", async () => {
    const { dataset } = generateOrganisation({ projects: 120, seed: 11, groupShares: true });
    const project = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length)!;
    project.shared_with_groups[0]!.expires_at = "2099-01-01T00:00:00.000Z";
    const sim = afterTest.add(await startGitLabSim({ dataset }));
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const policy = parsePolicy(EVERYTHING_STRAY.replace(/maxRemovals: \d+/, "maxRemovals: 100000"), "warden.yaml");
    const report = await enforce({ gitlab, policy });
    const removals = report.actions.filter((a) => a.status === "planned");
    expect(removals.some((a) => a.kind === "project" && a.projectId === project.id)).toBe(true);
    const written = planFile({ removals, policy, gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0.0.0-test", unmatchedRules: [] });
    const read = () => readPlanFile(JSON.stringify(written), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 86_400_000, now: new Date() });
    expect(read).not.toThrow();
    expect(read().plan.removals).toHaveLength(removals.length);
  });

  it("one removal whose expiry GitLab gave as a timestamp does not make the whole audit trail unrestorable", async () => {
    await setup();
    // A share whose expires_at reads as a timestamp: lib/gitlab's answer check (isShare) takes it, and the
    // policy judges its day (lib/policy/shares.ts slices it), so enforce removes it as any other.
    const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length)!;
    project.shared_with_groups[0]!.expires_at = "2099-01-01T00:00:00.000Z";
    const lines: string[] = [];
    const audit = { info: (message: string, fields: Record<string, unknown>) => lines.push(JSON.stringify({ level: "INFO", message, ...fields })) };
    const removal = await enforce({ gitlab: client(), policy: parsePolicy(EVERYTHING_STRAY, "bad.yaml"), apply: true, audit });
    expect(removal.summary.removed).toBeGreaterThan(10);
    expect(removal.actions.some((a) => a.kind === "project" && a.projectId === project.id && a.status === "done" && String(a.expiresAt).startsWith("2099-01-01"))).toBe(true);
    // The undo trail of that run: every removal it made must be restorable, that one with its expiry.
    const read = () => parseRestoreText(lines.join("\n"));
    expect(read).not.toThrow();
    expect(read().removals.length).toBe(removal.summary.removed);
    const fromReport = () => parseRestoreText(JSON.stringify(removal));
    expect(fromReport).not.toThrow();
  });
});

describe("the expiry's day, judged and carried", () => {
  const NOW = new Date("2026-03-10T12:00:00Z");

  /** The auditors link the policy allows (reporter, expiresWithin 90d), its expiry set to `expiresAt`; the run's report, or its error. */
  async function auditorsLinkExpiring(expiresAt: string) {
    const { dataset, intents } = generateOrganisation({ projects: 200, seed: 7, groupShares: true, now: NOW });
    const auditors = dataset.groups.find((g) => g.full_path === "auditors")!;
    const allowed = intents.find((i) => i.kind === "group" && i.groupId === auditors.id && i.intent === "allowed")!;
    dataset.groups.find((g) => g.id === allowed.sharedGroupId)!.shared_with_groups.find((s) => s.group_id === auditors.id)!.expires_at = expiresAt;
    const sim = afterTest.add(await startGitLabSim({ dataset }));
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const run = enforce({ gitlab, now: NOW, policy: parsePolicy(groupSharesPolicy(), "test.yaml") });
    return { run: run.then((report) => report, (err: unknown) => err as Error), key: `g${allowed.sharedGroupId}:${auditors.id}` };
  }

  it("judging is by the day: within expiresWithin kept, past it planned with its day alone, whatever the time or offset", async () => {
    const within = await auditorsLinkExpiring("2026-06-08T23:59:59+02:00");
    const kept = await within.run;
    expect(kept).not.toBeInstanceOf(Error);
    expect("actions" in kept && kept.actions.some((a) => actionKey(a) === within.key)).toBe(false);

    const beyond = await auditorsLinkExpiring("2026-06-09T00:00:00.000Z");
    const planned = await beyond.run;
    const action = "actions" in planned ? planned.actions.find((a) => actionKey(a) === beyond.key) : undefined;
    expect(action?.expiresAt).toBe("2026-06-09");
    expect(action?.reason).toMatch(/expires 2026-06-09, later than/);
  });

  it.each(["2026-05-01junk", "2026-05-01T", "2026-05-01 00:00", "2026-05-01T00:00:00Zjunk"])("an expiry %j, a date followed by no time, is refused as a bad answer", async (expiresAt) => {
    const outcome = await (await auditorsLinkExpiring(expiresAt)).run;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/without its shared_with_groups as a list of groups/);
  });
});
