/**
 * A restore input or a plan saved as UTF-16, as Windows PowerShell 5's `>` writes any redirected output
 * (`warden enforce --apply --json > removals.json`): named as such, with the fix, as the policy file's
 * reader names it (lib/config/policy-file.ts notUtf8). Before, `warden restore` and `warden apply`,
 * whose inputs are the CLI's own redirected output and so likelier to meet it than a policy, read it
 * as UTF-8 (bin/cli/io.ts readWholeFile) and blamed its content: "no remove-share … audit line found,
 * and not an enforce report", "is not a Warden plan file" (a review of the CLI's inputs).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
let dir: string;

/** `text` as PowerShell 5's `>` writes it: UTF-16LE with its byte order mark. */
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 20, seed: 13 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
  dir = mkdtempSync(join(tmpdir(), "warden-encoding-"));
});
afterAll(() => sim.close());

describe("a restore input or plan saved as UTF-16", () => {
  it("warden restore names the encoding and the fix", async () => {
    const applied = await warden(["enforce", "--apply", "--json"], env);
    expect(applied.code).toBe(0);
    const file = join(dir, "removals.json");
    writeFileSync(file, utf16(applied.stdout));
    sim.resetCounters();
    const run = await warden(["restore", file], env);
    expect(run.code).toBe(1);
    expect(sim.counters.requests).toBe(0);
    expect(run.stderr.trimEnd()).toBe(`warden restore: ${file} is UTF-16 (or holds NUL bytes), not UTF-8: save it as UTF-8 (in PowerShell, Out-File -Encoding utf8)`);
  });

  it("warden apply names the encoding and the fix", async () => {
    const out = join(dir, "plan-utf8.json");
    const planned = await warden(["enforce", "--out", out], env);
    expect(planned.stderr).toContain("plan written to");
    const file = join(dir, "plan-utf16.json");
    writeFileSync(file, utf16(readFileSync(out, "utf8")));
    sim.resetCounters();
    const run = await warden(["apply", file], env);
    expect(run.code).toBe(1);
    expect(sim.counters.requests).toBe(0);
    expect(run.stderr.trimEnd()).toBe(`warden apply: ${file} is UTF-16 (or holds NUL bytes), not UTF-8: save it as UTF-8 (in PowerShell, Out-File -Encoding utf8)`);
  });
});
