/**
 * `warden watch --state FILE` wrote its cursor to `${FILE}.${pid}.tmp` with writeFileSync and renamed it
 * over FILE. The temporary name was predictable (the process id), and writeFileSync followed a symlink
 * there: whoever could plant files in the working directory (a checked-in symlink, a teammate on a shared
 * runner) had any file the CI user can write overwritten with the cursor's JSON, and the state file
 * replaced by the symlink (a hostile review's finding). It is written as the plan is now
 * (lib/jobs/atomic-file.ts: a random name, opened exclusively, never following a symlink).
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { BUILT_CLI } from "../../bin/build-cli.ts";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile } from "../support/cli.ts";
import { WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

describe("warden watch's state file", () => {
  it("does not follow a symlink planted at its temporary file to overwrite another file", async () => {
    sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS });
    const dir = mkdtempSync(join(tmpdir(), "warden-watch-link-"));
    const state = join(dir, "watch.json");
    const victim = join(dir, "precious.txt");
    writeFileSync(victim, "precious\n");
    const env = { PATH: process.env["PATH"] ?? "", NODE_COMPILE_CACHE: inject("compileCache"), GITLAB_URL: sim.url, GITLAB_TOKEN: "root", WARDEN_POLICY: policyFile(watchPolicyText()) };
    const child = spawn(process.execPath, [BUILT_CLI, "watch", "--interval", "1s", "--state", state], { env });
    // Planted as soon as the process id is known: long before the first poll writes the cursor.
    symlinkSync(victim, `${state}.${child.pid}.tmp`);
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c));
    const closed = new Promise((resolve) => child.on("close", resolve));
    const end = Date.now() + 15_000;
    while (!/first start/.test(stderr) && Date.now() < end) await sleep(20);
    child.kill("SIGTERM");
    await closed;
    expect(stderr).toMatch(/first start/);
    expect(readFileSync(victim, "utf8"), "the file the symlink pointed at was overwritten").toBe("precious\n");
    expect(lstatSync(state).isSymbolicLink(), "the state file was replaced by the planted symlink").toBe(false);
  }, 30_000);
});
