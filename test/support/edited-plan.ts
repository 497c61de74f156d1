/**
 * A plan file someone who can edit the artifact rewrites (docs/security.md's actors): one stray share, an
 * acme project shared with partners/agency-y, planned by a dry run against a simulator of the running
 * test's own and written as `warden enforce --out` writes it; then the plan as edited, its checksum
 * recomputed (anyone can), read back as `warden apply` reads it.
 */
import { createHash } from "node:crypto";
import { expect } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { canonicalJson } from "../../lib/jobs/canonical-json.ts";
import { enforce, planFile, readPlanFile } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { ACCESS, generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import { afterTest } from "./cleanup.ts";
import { groupSharesPolicy } from "./policies.ts";

export async function planOfOneStray() {
  const { dataset } = generateOrganisation({ projects: 120, seed: 11, groupShares: true });
  const sim = afterTest.add(await startGitLabSim({ dataset }));
  const client = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const agency = dataset.groups.find((g) => g.full_path === "partners/agency-y")!;
  const victim = dataset.projects.find((p) => /^acme\/(?!legacy|mobile)/.test(p.path_with_namespace) && !p.shared_with_groups.some((s) => s.group_id === agency.id))!;
  victim.shared_with_groups.push({ group_id: agency.id, group_name: agency.name, group_full_path: agency.full_path, group_access_level: ACCESS.developer, expires_at: null });
  const policy = parsePolicy(groupSharesPolicy(), "warden.yaml");
  const report = await enforce({ gitlab: client(), policy });
  const removals = report.actions.filter((a) => a.kind === "project" && a.projectId === victim.id);
  expect(removals).toHaveLength(1);
  const written = planFile({ removals, policy, gitlabUrl: sim.url, createdAt: new Date(), wardenVersion: "0.0.0-test", unmatchedRules: [] });
  /** A plan file's text read back as `warden apply` reads it. */
  const read = (file: unknown) => readPlanFile(JSON.stringify(file), "plan.json", { gitlabUrl: sim.url, maxAgeMs: 86_400_000, now: new Date() });
  /** The plan with `edit` made to its content, the checksum recomputed, read back. */
  const edited = (edit: (content: { removals: Record<string, unknown>[] }) => void) => {
    const { checksum: _old, ...content } = JSON.parse(JSON.stringify(written)) as Record<string, unknown> & { removals: Record<string, unknown>[] };
    edit(content);
    return read({ ...content, checksum: `sha256:${createHash("sha256").update(canonicalJson(content), "utf8").digest("hex")}` });
  };
  return { sim, client, agency, victim, removals, written, read, edited };
}
