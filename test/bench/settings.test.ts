/**
 * The benchmark's flags (bin/bench/settings.ts): a value its flag does not take is refused before
 * anything runs, naming the flag and what it takes, and `npm run bench` says so in one line.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { BenchUsageError, checkMarkdownFile, parseSettings } from "../../bin/bench/settings.ts";

it("refuses a number, a tool or a limit its flag does not take, naming both", () => {
  for (const [args, message] of [
    [["--sizes", "10k"], '--sizes takes whole numbers from 1, not "10k"'],
    [["--sizes", "0"], '--sizes takes whole numbers from 1, not "0"'],
    [["--latency=-5"], '--latency takes whole numbers from 0, not "-5"'],
    [["--concurrency", "0"], '--concurrency takes whole numbers from 1, not "0"'],
    [["--time-scale", "ten"], '--time-scale takes whole numbers from 1, not "ten"'],
    [["--tools", "warden,python-gitlab"], '--tools takes warden, gitbeaker, not "python-gitlab"'],
    [["--limits", "gitlab"], '--limits takes none, gitlab.com, gitlab.com-advertised, gitlab.com-bare, not "gitlab"'],
  ] as const) {
    expect(() => parseSettings([...args]), args.join(" ")).toThrow(new BenchUsageError(message));
  }
  expect(() => parseSettings(["--json", "out.json"])).toThrow(BenchUsageError);
  // --json writes no Markdown: both together would drop --markdown silently.
  expect(() => parseSettings(["--json", "--markdown", "docs/benchmarks.md"])).toThrow(BenchUsageError);
  // An empty value leaves a row out, as --help says.
  expect(parseSettings(["--bucket=", "--cli=", "--durable-projects", "1000000"])).toMatchObject({ bucket: 0, cli: [], durableProjects: 1_000_000 });
});

it("npm run bench answers a flag it does not take with one line and exit 2, before anything runs", async () => {
  const err = (await promisify(execFile)(process.execPath, ["bin/bench/index.ts", "--sizes", "10k"]).catch((e: unknown) => e)) as { code: number; stdout: string; stderr: string };
  expect(err.code).toBe(2);
  expect(err.stdout).toBe("");
  expect(err.stderr).toBe('npm run bench: --sizes takes whole numbers from 1, not "10k". npm run bench -- --help lists the flags.\n');
});

it("--markdown names a file that can be written: in a directory that exists, not a directory itself", () => {
  const dir = mkdtempSync(join(tmpdir(), "bench-markdown-"));
  try {
    expect(() => checkMarkdownFile(join(dir, "benchmarks.md"))).not.toThrow();
    expect(() => checkMarkdownFile(join(dir, "no-such-dir", "benchmarks.md"))).toThrow(/^--markdown: cannot write into .*no-such-dir \(ENOENT\)/);
    expect(() => checkMarkdownFile(dir)).toThrow(/^--markdown: .* is a directory/);
    expect(() => checkMarkdownFile("")).not.toThrow();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
