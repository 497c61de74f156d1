/**
 * What Warden writes to disk about the organisation's shares: the plan (enforce --out) and the watch's
 * state are created 0600 (lib/jobs/atomic-file.ts); --audit-log's file was opened with Node's default
 * mode, 0666 less the umask: 0644 on a usual system (the cli7 review). Its lines name every project and
 * invited group a run removed (private ones included) and who added each: on a shared CI runner, a jump
 * host or a laptop with other accounts, anyone with a shell read them, where the plan holding the same
 * names was kept from them.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim.close());

describe("the files a run creates that name projects and groups", () => {
  it("--audit-log's file is created readable by its owner only, as the plan is", async () => {
    sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 30, seed: 7 }).dataset });
    const dir = mkdtempSync(join(tmpdir(), "warden-cli-"));
    const env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
    const plan = join(dir, "plan.json");
    expect((await warden(["enforce", "--out", plan], env)).code).toBe(2);
    const log = join(dir, "audit.jsonl");
    const run = await warden(["enforce", "--apply", "--audit-log", log], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(log, "utf8")).toMatch(/"project":"acme\//);
    expect((statSync(plan).mode & 0o777).toString(8), "the plan").toBe("600");
    expect((statSync(log).mode & 0o077).toString(8), "the audit log's mode for group and others").toBe("0");
  });
});
