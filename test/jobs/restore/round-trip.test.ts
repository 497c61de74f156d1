/** The round trip: enforce --apply under a bad policy, then restore --apply under the fixed one, from the report and from the audit lines. */
import { describe, expect, it } from "vitest";
import { enforce, parseRestoreText, type RestoreReport } from "../../../lib/jobs/index.ts";
import { allows } from "../../../lib/jobs/restore/policy-check.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { EVERYTHING_STRAY } from "../../support/policies.ts";
import { client, run, setup, snapshot, standard, TODAY } from "../../support/restore-world.ts";

describe("round trip: enforce --apply, then restore --apply", () => {
  async function removeStrays() {
    await setup();
    const before = snapshot();
    const lines: string[] = [];
    const audit = { info: (message: string, fields: Record<string, unknown>) => lines.push(JSON.stringify({ level: "INFO", message, ...fields })) };
    // A bad policy (no rule matches) removed every share in scope; the fixed one allows most of them back.
    const removal = await enforce({ gitlab: client(), policy: parsePolicy(EVERYTHING_STRAY, "bad.yaml"), apply: true, audit });
    const kinds = new Set(removal.actions.map((a) => a.kind));
    expect(kinds).toEqual(new Set(["project", "group"]));
    expect(snapshot().size).toBeLessThan(before.size);
    // A removed share whose expiry has passed is not brought back: GitLab would delete it that night.
    const expired = new Set(removal.actions.filter((a) => a.expiresAt !== null && a.expiresAt < TODAY).map((a) => (a.kind === "project" ? `project:${a.projectId}:${a.groupId}` : `group:${a.sharedGroupId}:${a.groupId}`)));
    const expected = new Map([...before].filter(([key]) => !expired.has(key)));
    return { report: JSON.stringify(removal), lines: lines.join("\n"), expected, expired: expired.size, removed: removal.summary.removed };
  }

  /**
   * What a restore under the fixed policy leaves out: the shares it skipped as not allowed (stray, out of
   * scope, or kept only by an exemption of their subject's every share: acme/legacy's), and those
   * GitLab refuses to create (the simulator's dataset holds projects shared with their own ancestor
   * group, which GitLab would never have let anyone make).
   */
  const withoutNotAllowed = (expected: Map<string, string>, report: RestoreReport) => {
    const refused = report.actions.filter((a) => a.status === "failed");
    expect(refused.every((a) => a.error === "GitLab refused (409): Project cannot be shared with the group it is in or one of its ancestors.")).toBe(true);
    const left = new Set([...refused, ...report.actions.filter((a) => a.policy && !allows(a.policy))].map((a) => (a.kind === "project" ? `project:${a.projectId}:${a.groupId}` : `group:${a.sharedGroupId}:${a.groupId}`)));
    return new Map([...expected].filter(([key]) => !left.has(key)));
  };

  it("from the report: every share the fixed policy allows is back with its level, expiry and custom role, the strays are not", async () => {
    const { report, expected, expired, removed } = await removeStrays();
    const restored = await run({ input: parseRestoreText(report), apply: true, policy: standard() });
    const { notAllowed } = restored.summary;
    expect(notAllowed).toBeGreaterThan(0);
    const { failed } = restored.summary;
    expect(restored.summary).toMatchObject({ restored: removed - expired - notAllowed - failed, skipped: expired + notAllowed });
    expect(snapshot()).toEqual(withoutNotAllowed(expected, restored));
  });

  it("from the audit lines: the same", async () => {
    const { lines, expected, expired, removed } = await removeStrays();
    const restored = await run({ input: parseRestoreText(lines), apply: true, policy: standard() });
    expect(restored.summary).toMatchObject({ restored: removed - expired - restored.summary.notAllowed - restored.summary.failed });
    expect(snapshot()).toEqual(withoutNotAllowed(expected, restored));
  });
});
