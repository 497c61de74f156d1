/**
 * The plan file carries each removal's `addedBy` (who created the share, from GitLab's audit events at
 * plan time) and `attribution`, and `warden apply` copied them into its report and into the audit line
 * of every share it removes. Without WARDEN_PLAN_KEY whoever can edit the artifact (checksum
 * recomputed) decided whom the audit trail of a real removal names as the share's adder: a colleague
 * framed, or the real adder hidden (the plans review's finding; the same class as the project's name,
 * test/jobs/apply/plan-names.test.ts). An unsigned plan's attribution is not repeated now; a signed
 * one's is Warden's own, and kept.
 */
import { expect, it } from "vitest";
import { applyPlan } from "../../../lib/jobs/index.ts";
import { planOfOneStray } from "../../support/edited-plan.ts";

const FRAMED = { name: "Jane Doe", username: "jdoe", at: "2026-01-05T09:14:03.120Z", eventId: 424242 };

it("the audit line of a share apply removed names the adder GitLab records, not one an edited plan gives", async () => {
  const { client, agency, victim, removals, written, read, edited } = await planOfOneStray();
  // What the reviewed dry run said of the share's adder (whatever GitLab's audit events gave).
  const honest = { addedBy: removals[0]!.addedBy, attribution: removals[0]!.attribution };
  expect(honest.addedBy?.username).not.toBe(FRAMED.username);

  // The edit: the share now reads as added by Jane Doe; the checksum recomputed, the policy untouched.
  const { plan, policy: planPolicy } = edited((content) => {
    content.removals[0]!["addedBy"] = FRAMED;
    delete content.removals[0]!["attribution"];
  });

  const lines: Record<string, unknown>[] = [];
  const applied = await applyPlan({ gitlab: client(), plan, policy: planPolicy, apply: true, audit: { info: (_m, fields) => void lines.push(fields) } });
  // The share was really removed ...
  expect(victim.shared_with_groups.some((s) => s.group_id === agency.id)).toBe(false);
  expect(applied.actions[0]).toMatchObject({ status: "done", projectId: victim.id });
  expect(lines).toHaveLength(1);
  // ... and its audit line and report row do not name whoever the plan's editor chose (before: both said "Jane Doe").
  expect(lines[0]!["addedBy"]).toBeUndefined();
  expect(applied.actions[0]!.addedBy).toBeUndefined();
  // A signed plan's attribution is Warden's own (its signature verified with WARDEN_PLAN_KEY): kept.
  const signed = await applyPlan({ gitlab: client(), plan: read(written).plan, policy: planPolicy, signed: true });
  expect(signed.actions[0]!.addedBy).toEqual(honest.addedBy);
});
