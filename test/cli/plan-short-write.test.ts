/**
 * writeFileAtomically (lib/jobs/atomic-file.ts) wrote its text with one fs.writeSync and ignored the count it returns. A
 * disk that fills up (or a file size limit, `ulimit -f`) takes part of the text and says how much; no error
 * follows, since no second write is made. The truncated file was made durable and renamed over the path:
 * `warden enforce --out plan.json` said "plan written to plan.json: 94 removals" and exited 2 (a CI plan job
 * passes on 2) with a plan apply can only refuse; `warden watch --state` replaces a good cursor with half of one.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../../bin/build-cli.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 11 }).dataset, latencyMs: 2 });
  env = { PATH: process.env["PATH"] ?? "", GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

describe("enforce --out where the plan cannot be written whole (a file size limit of 16 KiB)", () => {
  it("the run says the plan could not be written and exits 1; no truncated plan is left under its name", async () => {
    const plan = join(mkdtempSync(join(tmpdir(), "warden-")), "plan.json");
    const child = spawn("sh", ["-c", `ulimit -f 16; exec '${process.execPath}' '${BUILT_CLI}' enforce --out '${plan}'`], { env });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.stdout.resume();
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    let text = "";
    try {
      text = readFileSync(plan, "utf8");
    } catch {
      // None written: as it should be.
    }
    if (text !== "") expect(() => JSON.parse(text), `a truncated plan of ${text.length} bytes was left, and stderr said: ${stderr}`).not.toThrow();
    expect(stderr).toMatch(/cannot write the plan to .*EFBIG/);
    expect(code).toBe(1);
  }, 60_000);
});
