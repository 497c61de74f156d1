/**
 * The policy8 review: a share's `member_role_id` and `expires_at` were judged as GitLab sends them,
 * unchecked. lib/gitlab/answer-shapes.ts checked a share's group id, path and level (so that a proxy's
 * rewrite cannot pass a stray for in policy), but not the two fields the policy's conditions read: a
 * custom role sent as a string ("9") was taken for no custom role, and an expiry sent as "" for one within
 * expiresWithin, so a share the policy forbids was kept as allowed. Such an answer is refused now.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../support/policies.ts";
import { actionKey } from "../support/share-keys.ts";

const NOW = new Date("2026-03-10T12:00:00Z");
let sim: GitLabSim;
afterEach(() => sim?.close());

async function auditorsLink() {
  const { dataset, intents } = generateOrganisation({ projects: 200, seed: 7, groupShares: true, now: NOW });
  sim = await startGitLabSim({ dataset });
  const auditors = dataset.groups.find((g) => g.full_path === "auditors")!;
  const allowed = intents.find((i) => i.kind === "group" && i.groupId === auditors.id && i.intent === "allowed")!;
  const sharing = dataset.groups.find((g) => g.id === allowed.sharedGroupId)!;
  const link = sharing.shared_with_groups.find((s) => s.group_id === auditors.id)!;
  return { link, key: `g${sharing.id}:${auditors.id}` };
}

/** "stray" (planned for removal), "refused" (the run failed on the answer), or "kept" (judged in policy). */
async function fate(key: string): Promise<string> {
  const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return enforce({ gitlab, now: NOW, policy: parsePolicy(groupSharesPolicy(), "test.yaml") }).then(
    (report) => (report.actions.some((a) => actionKey(a) === key) ? "stray" : "kept"),
    () => "refused",
  );
}

describe("review policy8: the share fields the policy's conditions read", () => {
  it("a custom role sent as a string is not taken for no custom role under maxAccess", async () => {
    const { link, key } = await auditorsLink();
    expect(await fate(key)).toBe("kept"); // the rule (auditors, maxAccess reporter, expiresWithin 90d) allows it as it is
    (link as { member_role_id: unknown }).member_role_id = "9";
    expect(await fate(key)).not.toBe("kept");
  });

  it("an expiry sent as an empty string is not taken for one within expiresWithin", async () => {
    const { link, key } = await auditorsLink();
    (link as { expires_at: unknown }).expires_at = "";
    expect(await fate(key)).not.toBe("kept");
  });
});
