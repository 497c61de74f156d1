/**
 * A plan file carries its policy's whole text, and `warden apply` parses it (readPlanFile's parsePolicy)
 * before anything compares it with the policy given: a policy file was refused past 1 MiB by its size
 * (lib/config/policy-file.ts), a repository's too (maxBytes), but a plan's policy text had no bound but
 * the plan's 64 MB (the cli7 review). Whoever can edit the artifact between review and apply
 * (docs/security.md's actor) wrote a 40 MB YAML there, recomputed the checksum and the SHA-256 (anyone
 * can), and apply died of V8's "heap out of memory" (exit 134, a native stack trace) instead of refusing
 * the plan, naming why. parsePolicy itself refuses a text past that 1 MiB now, wherever it came from.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/jobs/canonical-json.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

const GITLAB_URL = "http://127.0.0.1:9";

describe("a plan whose policy text is far larger than any policy", () => {
  it("is refused with a message naming the cause, not a heap crash", async () => {
    // A policy no reader would take (over 1 MiB), as YAML that is cheap to write and costly to parse.
    const text = `version: 1\ngitlab:\n  scope:\n    groups: [${"a, ".repeat(14_000_000)}a]\n`;
    const content = {
      format: "warden-plan", formatVersion: 1, createdAt: new Date().toISOString(), wardenVersion: "0.1.0", gitlabUrl: GITLAB_URL,
      policy: { source: "file", path: "warden.yaml", sha256: createHash("sha256").update(text, "utf8").digest("hex"), text },
      unmatchedRules: [], removals: [],
    };
    const plan = join(mkdtempSync(join(tmpdir(), "warden-cli-")), "plan.json");
    writeFileSync(plan, JSON.stringify({ ...content, checksum: `sha256:${createHash("sha256").update(canonicalJson(content), "utf8").digest("hex")}` }));
    const run = await warden(["apply", plan, "--apply"], { GITLAB_URL, GITLAB_TOKEN: "glpat-unused-in-this-test", WARDEN_POLICY: policyFile(standardPolicy()) });
    expect(run.stderr.slice(0, 2000), "the process died of a full heap").not.toMatch(/FATAL ERROR|heap out of memory|Native stack trace/);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden apply: .*plan/);
  }, 120_000);
});
