/**
 * A policy file that is not UTF-8 (Windows-1252, as older Windows editors save "läuft"): the repository's
 * reader refuses it (lib/config/policy-source.ts decodes with fatal), the file's reader put U+FFFD for each
 * bad byte and went on. So `warden policy check warden.yaml` in a merge request's pipeline passed a policy
 * every function reading it from the repository then refused, and the SHA-256 a report named was not the
 * file's (`sha256sum warden.yaml`), two different files sharing one.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicyFile } from "../../lib/config/policy-file.ts";
import { PolicyError } from "../../lib/policy/index.ts";

const dir = mkdtempSync(join(tmpdir(), "warden-policy-encoding-"));

describe("a policy file that is not UTF-8", () => {
  it("is refused, naming the encoding and the fix, not read with replacement characters", async () => {
    const file = join(dir, "latin1.yaml");
    const text = 'version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt:\n      - project: acme/x\n        reason: "Vertrag l\u00e4uft"\n';
    writeFileSync(file, Buffer.from(text, "latin1"));
    const loaded = loadPolicyFile(file);
    await expect(loaded).rejects.toBeInstanceOf(PolicyError);
    await expect(loaded).rejects.toThrow(/is not UTF-8 text.*save it as UTF-8/);
  });

  it("a UTF-8 file with the same text is read", async () => {
    const file = join(dir, "utf8.yaml");
    writeFileSync(file, 'version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt:\n      - project: acme/x\n        reason: "Vertrag l\u00e4uft"\n');
    expect((await loadPolicyFile(file)).gitlab?.shares.exempt[0]?.reason).toBe("Vertrag l\u00e4uft");
  });
});
