/**
 * A durable Enforce execution recorded each step's strays and removals up to 1,000 a step
 * (functions/shared/durable/steps.ts), gzip'd in one checkpoint of at most 256 KB, counting on
 * compression. Names are chosen by whoever creates projects: GitLab allows a project path of 255
 * characters, and random ones do not compress. About 1,000 stray shares of projects with such paths made
 * "examine 1"'s result 276 KB compressed: the step failed on every attempt, with no removal and no report,
 * dry run or not, and the lease kept the next scheduled runs out (a hostile review's finding). Steps are
 * cut by the bytes of what they record too now (perStepBytes): examination, removals, authors, notices.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, succeededEnforce } from "../../support/durable-world.ts";
import { EVERYTHING_STRAY } from "../../support/policies.ts";

const STRAYS = 1_000;

/** acme's projects, each with a 255-character random path (as anyone who may create a project can name it), and one share each, stray. */
function hostileOrganisation() {
  const { dataset } = generateOrganisation({ projects: 1_300, seed: 3 });
  const outside = dataset.groups.find((g) => !g.full_path.startsWith("acme"))!;
  for (const p of dataset.projects) {
    const namespace = p.path_with_namespace.slice(0, p.path_with_namespace.lastIndexOf("/"));
    p.path = randomBytes(200).toString("base64url").slice(0, 255);
    p.name = p.path;
    p.path_with_namespace = `${namespace}/${p.path}`;
    p.shared_with_groups = [{ group_id: outside.id, group_name: outside.name, group_full_path: outside.full_path, group_access_level: 30, expires_at: null }];
  }
  return dataset;
}

const world = durableWorld({ skipTime: true, policy: EVERYTHING_STRAY, gitlab: () => ({ dataset: hostileOrganisation() }), env: () => ({ WARDEN_REPORT_ONLY: "false" }) });

describe("a durable Enforce execution over projects with long random paths", () => {
  it("finishes its dry run with a report, whatever the names", async () => {
    expect(world.gitlab.dataset.projects.length).toBeGreaterThanOrEqual(STRAYS);
    const r = await succeededEnforce({});
    expect(r.summary.strays).toBeGreaterThanOrEqual(STRAYS);
  }, 120_000);

  it("applies, removing every stray in steps that fit a checkpoint", async () => {
    const r = await succeededEnforce({ dryRun: false });
    expect(r.summary.removed).toBeGreaterThanOrEqual(STRAYS);
    expect(r.summary.removed).toBe(r.summary.strays);
    expect(r.actions.every((a) => a.status === "done")).toBe(true);
  }, 120_000);
});
