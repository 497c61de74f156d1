/**
 * A durable examination step records its strays within a checkpoint's 256 KB (slice.ts: perStepBytes, and a
 * subject not judged once the step holds half as much again), but it checked only between subjects: every share
 * of one subject was judged into the step, however many. Anyone who may create groups names them (a path of 255
 * characters, random ones do not compress), and a project's Maintainer may share it with each: one project shared
 * with 1,000 such groups made one step's strays more than a checkpoint holds, and the step failed on every
 * attempt, with no removal anywhere and no report, every run.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, succeededEnforce } from "../../support/durable-world.ts";
import { EVERYTHING_STRAY } from "../../support/policies.ts";

const SHARES = 1_000;

/** acme's organisation, one of its projects shared with SHARES outside groups, each with a 255-character random path. */
function oneProjectSharedWidely() {
  const { dataset } = generateOrganisation({ projects: 50, seed: 3 });
  const target = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
  const top = Math.max(...dataset.groups.map((g) => g.id));
  for (let i = 1; i <= SHARES; i++) {
    const path = randomBytes(200).toString("base64url").slice(0, 255);
    dataset.groups.push({ id: top + i, name: path, path, full_path: path, parent_id: null, visibility: "public", shared_with_groups: [] });
    target.shared_with_groups.push({ group_id: top + i, group_name: path, group_full_path: path, group_access_level: 30, expires_at: null });
  }
  return dataset;
}

const world = durableWorld({ skipTime: true, policy: EVERYTHING_STRAY, gitlab: () => ({ dataset: oneProjectSharedWidely() }), env: () => ({ WARDEN_REPORT_ONLY: "false" }) });

describe("a durable Enforce execution over a project shared with a thousand long random group paths", () => {
  it("finishes with a report, rather than an examination step past what a checkpoint holds", async () => {
    expect(world.gitlab.dataset.groups.length).toBeGreaterThan(SHARES);
    const report = await succeededEnforce({});
    // As many of its strays as a step holds are planned; the project is named as not examined in full, for the next run.
    expect(report.summary.strays).toBeGreaterThan(100);
    expect(report.summary.strays).toBeLessThan(SHARES);
    expect(report.summary).toMatchObject({ unexamined: 1, complete: false });
    expect(report.warnings).toContainEqual(expect.stringMatching(new RegExp(`of its stray shares were not planned, more than one step of the run records .*the next run tries it again$`)));
  }, 120_000);

  it("an applying run removes what it planned, and the next removes the rest", async () => {
    const first = await succeededEnforce({ dryRun: false });
    expect(first.summary.removed).toBe(first.summary.strays);
    expect(first.summary.removed).toBeGreaterThan(100);
    // Each run removes what it planned, until one examines everything in scope, and removes the last of them.
    let last = first;
    for (let run = 0; run < 5 && !last.summary.complete; run++) last = await succeededEnforce({ dryRun: false });
    expect(last.summary.complete).toBe(true);
    expect(last.summary.removed).toBe(last.summary.strays);
    expect(last.summary.shares - last.summary.strays).toBe(0);
  }, 240_000);
});
