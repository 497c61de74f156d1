/**
 * Restore judges each share by the policy's gitlab rules (policy-check.ts). Given a policy without them (an
 * n8n policy passed by mistake: valid, governing no GitLab share) it read every project and group, then
 * ended in a TypeError naming neither the cause nor the fix (the plan13 review). Refused before any request.
 */
import { expect, it } from "vitest";
import { parseRestoreText, restore, RestoreInputError } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { client, posts, setup, sim } from "../../support/restore-world.ts";

it("a policy with no gitlab section is refused before any request, naming the cause and the fix", async () => {
  await setup();
  const project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && p.shared_with_groups.length)!;
  const s = project.shared_with_groups.shift()!;
  const text = JSON.stringify({ job: "enforce", dryRun: false, actions: [{ type: "remove-share", kind: "project", projectId: project.id, project: project.path_with_namespace, groupId: s.group_id, group: s.group_full_path, accessLevel: 30, expiresAt: null, reason: "stray", status: "done" }] });
  sim.resetCounters();
  const n8nOnly = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ["name:x"]\n`, "n8n.yaml");
  const outcome = restore({ gitlab: client(), policy: n8nOnly, input: parseRestoreText(text), apply: true });
  await expect(outcome).rejects.toBeInstanceOf(RestoreInputError);
  await expect(outcome).rejects.toThrow(/the policy has no gitlab section, by which each share restored is judged: give the policy that governs these shares; nothing was restored/);
  expect(sim.counters.requests).toBe(0);
  expect(posts()).toBe(0);
});
