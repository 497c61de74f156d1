/**
 * A plan's policy is checked by its text (the SHA-256 of the policy given here), but what the plan says of
 * where that text came from (`policy.source`, `project`, `ref`, `commitId`, `path`) rides along unchecked
 * when the policy given is a file: the apply's report and its audit lines, the undo trail `warden restore`
 * reads and an auditor keeps, then name the policy as the plan's editor chose, such as a reviewed
 * commit of the protected policy repository, when the removals were judged by a local file.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/jobs/canonical-json.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim.close());

describe("the provenance a plan records for its policy", () => {
  it("is not what apply's report and audit lines say the removals were judged by, when the policy given is a file", async () => {
    sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 30, seed: 7 }).dataset });
    const dir = mkdtempSync(join(tmpdir(), "warden-apply-provenance-"));
    const policy = policyFile(EVERYTHING_STRAY);
    const env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policy };
    const out = join(dir, "plan.json");
    expect((await warden(["enforce", "--out", out], env)).code).toBe(2);
    // The editor keeps the text (so its SHA-256 matches the file given) and rewrites where it says it came from.
    const { checksum: _, ...content } = JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown> & { policy: Record<string, unknown> };
    content.policy = { source: "gitlab", project: "security/policies", projectId: 4242, path: "warden.yaml", ref: "main", commitId: "c".repeat(40), sha256: content.policy["sha256"], text: content.policy["text"] };
    writeFileSync(out, JSON.stringify({ ...content, checksum: `sha256:${createHash("sha256").update(canonicalJson(content), "utf8").digest("hex")}` }));
    const run = await warden(["apply", out, "--apply", "--json"], env);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { policy: { source: string; path?: string; project?: string } };
    const audit = run.stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { policy?: { source: string; project?: string } });
    expect(audit.length).toBeGreaterThan(0);
    expect(report.policy, "the report names the policy the plan's editor chose").toMatchObject({ source: "file", path: policy });
    for (const line of audit) expect(line.policy?.project, "an audit line names a repository policy that judged nothing").toBeUndefined();
  });
});
