/**
 * A hostile review's finding (lib/config/policy-file.ts): a policy file saved as UTF-16 (Windows: Notepad's "Unicode", PowerShell 5's `>` and
 * Out-File), which the CLI reads as UTF-8. docs/cli.md: an error names the cause and the fix; this
 * one said "expected a mapping, got a text of N characters (is it a policy file?)": it is, in UTF-16.
 */
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

describe("a policy file in UTF-16", () => {
  it("little-endian with its byte order mark: named as UTF-16, with the fix (save it as UTF-8)", async () => {
    const path = policyFile("");
    writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(standardPolicy(), "utf16le")]));
    const run = await warden(["policy", "check", "--policy", path], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is UTF-16 \(or holds NUL bytes\), not UTF-8: save it as UTF-8/);
  });

  it("big-endian, or without a byte order mark: the same", async () => {
    for (const bytes of [Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(standardPolicy(), "utf16le").swap16()]), Buffer.from(standardPolicy(), "utf16le")]) {
      const path = policyFile("");
      writeFileSync(path, bytes);
      const run = await warden(["policy", "check", "--policy", path], {});
      expect([run.code, run.stderr]).toEqual([1, expect.stringMatching(/is UTF-16 \(or holds NUL bytes\), not UTF-8/)]);
    }
  });
});
