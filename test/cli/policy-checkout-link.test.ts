/**
 * A merge request's pipeline checks out its author's branch, and runs `warden policy check` (or a comparison)
 * on its `warden.yaml`. Committed as a symbolic link to a file of the runner's (a file variable's, written
 * beside the checkout; ~/.netrc), it had Warden read that file and quote its lines in the parse error, into
 * a job log the author reads. In GitLab CI a policy file in the checkout that a link leads out of it is
 * refused before it is read; a link within the checkout is followed, and outside CI nothing changes.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

const SECRET_LINE = "machine gitlab.example.com login deploy password Zq7-not-for-the-log-4411";
let root: string;
let checkout: string;
let ci: Record<string, string>;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "warden-checkout-link-"));
  checkout = join(root, "builds", "acme", "policies");
  mkdirSync(checkout, { recursive: true });
  // The runner's file beside the checkout, as GitLab writes a file variable's (<CI_PROJECT_DIR>.tmp/NAME).
  mkdirSync(join(root, "builds", "acme", "policies.tmp"));
  writeFileSync(join(root, "builds", "acme", "policies.tmp", "NETRC"), `${SECRET_LINE}\n`);
  ci = { GITLAB_CI: "true", CI_PROJECT_DIR: checkout };
});

describe("a policy file that is a symbolic link, in GitLab CI", () => {
  it("out of the checkout: refused naming the cause and the fix, the file it leads to never quoted", async () => {
    symlinkSync("../policies.tmp/NETRC", join(checkout, "warden.yaml"));
    for (const args of [["policy", "check"], ["policy", "check", "--policy", "warden.yaml"], ["policy", "check", "--policy", join(checkout, "warden.yaml")]]) {
      const run = await warden(args, ci, checkout);
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stderr).toMatch(/is a symbolic link out of the project's checkout \(CI_PROJECT_DIR\).*Name the file itself, inside the checkout/);
      expect(run.stderr + run.stdout).not.toMatch(/Zq7|password|machine/);
    }
  });

  it("within the checkout: followed, as before", async () => {
    mkdirSync(join(checkout, "policies"));
    writeFileSync(join(checkout, "policies", "main.yaml"), standardPolicy());
    symlinkSync("policies/main.yaml", join(checkout, "warden.yaml"));
    const run = await warden(["policy", "check"], ci, checkout);
    expect(run.stderr).not.toMatch(/symbolic link/);
    expect(run.code).toBe(0);
  });

  it("outside CI (a laptop's link to a file of the user's own): read as before", async () => {
    symlinkSync("../policies.tmp/NETRC", join(checkout, "warden.yaml"));
    const run = await warden(["policy", "check"], {}, checkout);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/symbolic link/);
    expect(run.stderr).toMatch(/warden\.yaml/);
  });
});
