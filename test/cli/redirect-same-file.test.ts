/**
 * A hostile review's finding (package14, bin/cli/distinct-files.ts): the files a run writes were told apart
 * from each other and from the policy, not from where the shell sends its output. `warden enforce --apply
 * --json --audit-log apply.jsonl > apply.jsonl` (a CI script's artifact name given twice; the shell makes the
 * file 0600 under umask 077, so the mode check passes): the audit lines were appended as each change
 * happened, then the report, written from the start of the file through stdout's own offset, overwrote
 * them. Neither the undo trail nor the report survived whole (restore: "not a complete JSON object"). Now
 * it is refused before any request, naming both, as two named files that are one are.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
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
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 40, seed: 11 }).dataset, latencyMs: 2 });
  env = { PATH: process.env["PATH"] ?? "", GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

/** The CLI with stdout (fd 1) or stderr (fd 2) on `file`, opened as the shell's `>` opens it (0600: umask 077). */
function wardenRedirected(fd: 1 | 2, file: string, args: string[]): Promise<{ code: number; captured: string }> {
  const out = openSync(file, "w", 0o600);
  const stdio: ["ignore", number | "pipe", number | "pipe"] = fd === 1 ? ["ignore", out, "pipe"] : ["ignore", "pipe", out];
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { env, stdio });
  closeSync(out);
  let captured = "";
  (fd === 1 ? child.stderr : child.stdout)!.on("data", (chunk: Buffer) => (captured += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? 1, captured })));
}

describe("--audit-log naming the file the shell sends the output to", () => {
  it.each([1, 2] as const)("fd %i: refused before any request, naming both; the file is left as the shell made it", async (fd) => {
    const file = join(mkdtempSync(join(tmpdir(), "warden-")), "apply.jsonl");
    const run = await wardenRedirected(fd, file, ["enforce", "--apply", "--json", "--audit-log", file]);
    // The error goes to stderr: with fd 2, the file itself, which holds nothing else.
    const [said, left] = fd === 1 ? [run.captured, readFileSync(file, "utf8")] : [readFileSync(file, "utf8"), run.captured];
    expect(said).toMatch(new RegExp(`^warden enforce: --audit-log and standard ${fd === 1 ? "output" : "error"} name one file, .*\n$`));
    expect(left).toBe("");
    expect(run.code).toBe(1);
    expect(sim.counters.requests).toBe(0);
  });

  it("enforce --out PLAN > PLAN: refused before any request (the plan, renamed over it, would take the report's place)", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "warden-")), "plan.json");
    const run = await wardenRedirected(1, file, ["enforce", "--out", file]);
    expect(run.captured).toMatch(/--out and standard output name one file/);
    expect(run.code).toBe(1);
    expect(sim.counters.requests).toBe(0);
  });

  it("stdout and stderr in one file (> log 2>&1) with an --audit-log of its own: runs as before", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-"));
    const log = join(dir, "log");
    const out = openSync(log, "w", 0o600);
    const child = spawn(process.execPath, [BUILT_CLI, "enforce", "--json", "--audit-log", join(dir, "a.jsonl")], { env, stdio: ["ignore", out, out] });
    closeSync(out);
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    expect(code, readFileSync(log, "utf8")).toBe(2);
  });
});
