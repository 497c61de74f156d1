/**
 * Bad input is refused before anything runs: `--markdown FILE` is written only once every row has run
 * (bin/bench/index.ts), so its directory is checked first (settings.ts's checkMarkdownFile).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

describe("--markdown into a directory that does not exist", () => {
  it("is refused before any row runs, naming the flag", () => {
    const file = join(tmpdir(), "no-such-dir", "benchmarks.md");
    const only1000 = ["--sizes", "1000", "--limits", "none", "--tools", "warden", "--cli=", "--latency-rows=", "--durable=", "--bucket=", "--watch=", "--stream=", "--notices="];
    const run = spawnSync(process.execPath, [join(ROOT, "bin/bench/index.ts"), ...only1000, "--markdown", file], { cwd: ROOT, env: process.env, encoding: "utf8", timeout: 60_000 });
    expect(existsSync(file)).toBe(false);
    expect({ status: run.status, ranARow: run.stderr.includes("1000 projects, limits none: warden"), namesTheFlag: run.stderr.includes("--markdown") }).toEqual({ status: 2, ranARow: false, namesTheFlag: true });
  }, 60_000);
});
