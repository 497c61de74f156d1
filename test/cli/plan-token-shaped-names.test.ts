/**
 * A name shaped like a token cannot stop the reviewed plan. Redaction masks anything shaped like a
 * GitLab token, whoever's it is, and a plan file is never written holding a credential; a plan that
 * refused to be written for a name GitLab gave let whoever owns a group outside the scope (and names
 * it `glpat-` and 20 characters) stop every `warden enforce --out`, and so every apply of a
 * pipeline that plans first, keeping their own stray share. The plan now masks GitLab's names as every
 * other output does; apply judges each share again by its ids, from what GitLab says now.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanFile } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

/** A group path as its owner may choose it: a GitLab token's shape, not anyone's token. */
const TOKEN_SHAPED = "partners/glpat-AbCdEfGhIjKlMnOpQrStUv";

let sim: GitLabSim;
let env: Record<string, string>;
let marked: { projectId: number; groupId: number };

beforeAll(async () => {
  const { dataset, intents } = generateOrganisation({ projects: 40, seed: 21 });
  const first = intents.find((i) => i.intent === "stray" && i.kind === "project")!;
  marked = { projectId: first.projectId!, groupId: first.groupId };
  dataset.projects.find((p) => p.id === marked.projectId)!.shared_with_groups.find((s) => s.group_id === marked.groupId)!.group_full_path = TOKEN_SHAPED;
  sim = await startGitLabSim({ dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

describe("a stray share whose group is named like a token", { timeout: 120_000 }, () => {
  it("is planned, masked in the plan as in the report, and removed by the apply", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "warden-plan-shape-")), "plan.json");
    const planned = await warden(["enforce", "--out", path], env);
    expect(planned.stderr).toContain(`plan written to ${path}: `);
    expect(planned.code).toBe(2);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(TOKEN_SHAPED);
    const plan = JSON.parse(text) as PlanFile;
    expect(plan.removals).toContainEqual(expect.objectContaining({ projectId: marked.projectId, groupId: marked.groupId, group: "partners/[REDACTED]" }));

    const applied = await warden(["apply", path, "--apply", "--json"], env);
    expect(applied.code).toBe(0);
    const shares = sim.dataset.projects.find((p) => p.id === marked.projectId)!.shared_with_groups;
    expect(shares.some((s) => s.group_id === marked.groupId)).toBe(false);
    expect(applied.stdout + applied.stderr).not.toContain(TOKEN_SHAPED);
  });
});
