/**
 * The policy's identity (its SHA-256, which reports, audit lines, plans and durable
 * runs pin) when the repository file starts with a UTF-8 byte order mark, as editors on Windows write
 * it. lib/config/policy-source.ts decodes keeping the BOM, as
 * lib/config/policy-file.ts does, so its hash is the file's as lib/jobs/apply/plan-policy.ts hashes it.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGitLabPolicy, type PolicySettingNames } from "../../lib/config/policy-source.ts";
import { trustedLocation } from "../../lib/config/policy-trust.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { checkPlanPolicy } from "../../lib/jobs/apply/plan-policy.ts";
import type { PlanFile } from "../../lib/jobs/shares/plan-file.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";

const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const bytes = Buffer.concat([BOM, Buffer.from(standardPolicy())]);

let sim: GitLabSim;
let repo: SimProject;
const client = () => new GitLabClient({ url: sim.url, token: "glpat-sim-admin", retry: { maxRetries: 0, baseDelayMs: 1, maxBackoffMs: 2 } });

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 3, seed: 5 }).dataset });
  repo = sim.dataset.projects[0]!;
  sim.repositories.commit(repo, { "warden.yaml": bytes });
});
afterAll(() => sim.close());

describe("a repository policy with a byte order mark", () => {
  it("is named by the SHA-256 of the file as committed (what `sha256sum warden.yaml` in a checkout says)", async () => {
    const { policy } = await loadGitLabPolicy(client(), { project: String(repo.id), path: "warden.yaml" }, { names: NAMES });
    expect(policy.source.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  // A plan made from it records the policy's sha256; warden apply compares the SHA-256 of the file's
  // bytes at the plan's commit with it, and refuses every such plan as "edited".
  it("a plan made from it, unchanged, is accepted by warden apply's policy check", async () => {
    const gitlab = client();
    const { policy } = await loadGitLabPolicy(gitlab, { project: String(repo.id), path: "warden.yaml" }, { names: NAMES });
    const plan = { policy: { ...policy.source, text: policy.text } } as unknown as PlanFile;
    const given = { kind: "gitlab" as const, project: String(repo.id), path: "warden.yaml" };
    const checked = checkPlanPolicy(gitlab, { plan, policy }, given, { file: "plan.json", signed: false, trust: (at, signal) => trustedLocation(gitlab, at, NAMES, signal) });
    await expect(checked).resolves.toMatchObject({ policy: { source: { sha256: policy.source.sha256 } } });
  });
});
