/**
 * A review of the package as a user runs it (bin/cli/restore.ts): `warden restore latest` (the Lambdas' run history in S3) as a laptop user first runs it,
 * without the AWS settings it needs. docs/cli.md and README: an error is "a message naming the cause
 * and the fix". The AWS SDK's own words reached the user bare, naming neither the setting nor what
 * Warden was reading (the s3:// form of the same read says "reading s3://… failed: Error: Region is missing").
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

/** No AWS settings of this machine's: an empty HOME (no ~/.aws), instance metadata off, no network needed. */
const base = () => ({
  HOME: mkdtempSync(join(tmpdir(), "warden-home-")),
  AWS_EC2_METADATA_DISABLED: "true",
  GITLAB_URL: "http://127.0.0.1:9",
  GITLAB_TOKEN: "glpat-review-token",
  WARDEN_POLICY: policyFile(standardPolicy()),
  WARDEN_RUN_HISTORY_BUCKET: "warden-run-history",
});

describe("warden restore latest without AWS settings", () => {
  it("no region: named as AWS_REGION, with the bucket (not the SDK's bare 'Region is missing')", async () => {
    const run = await warden(["restore", "latest"], base());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/AWS_REGION/);
    expect(run.stderr).toContain("warden-run-history");
  });

  it("no credentials: named with the ways to give them, with the bucket (not the SDK's bare 'Could not load credentials from any providers')", async () => {
    const run = await warden(["restore", "latest"], { ...base(), AWS_REGION: "eu-west-1" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/AWS_PROFILE|AWS_ACCESS_KEY_ID/);
    expect(run.stderr).toContain("warden-run-history");
  });
});
