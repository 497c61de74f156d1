/** The conventions of a command line tool: version, help, "did you mean", usage errors without stacks. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { COMMANDS, COMMON } from "../../bin/cli/main.ts";
import { closest, editDistance } from "../../bin/cli/suggest.ts";
import { packageVersion } from "../../bin/cli/version.ts";
import { policyFile, warden } from "../support/cli.ts";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const STACK = /\n\s+at /;

describe("warden --version", () => {
  it.each(["--version", "-V"])("%s prints the package's version", async (flag) => {
    const run = await warden([flag], {});
    expect(run).toEqual({ code: 0, stdout: `warden ${VERSION}\n`, stderr: "" });
  });

  it("is read from the nearest package.json with a version above the module, as from a built dist/", () => {
    const root = mkdtempSync(join(tmpdir(), "warden-version-"));
    mkdirSync(join(root, "dist", "bin", "cli"), { recursive: true });
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "warden", version: "9.8.7" }));
    // A package.json that only sets the module type is passed over.
    writeFileSync(join(root, "dist", "package.json"), JSON.stringify({ type: "module" }));
    expect(packageVersion(pathToFileURL(join(root, "dist", "bin", "cli", "main.js")).href)).toBe("9.8.7");
  });
});

describe("help", () => {
  it("a bare warden prints the help, and exits 1 as git and npm do: no command ran", async () => {
    const run = await warden([], {});
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^Usage: warden <command> \[options\]\n/);
    expect(run.stdout).toContain("warden --version");
    expect(run.stderr).toBe("");
  });

  it.each([["--help"], ["-h"], ["help"]])("warden %s prints it and exits 0", async (flag) => {
    const run = await warden([flag], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: warden <command> \[options\]\n/);
  });

  // Derived from the definitions the parser uses, so a flag added to a command cannot be left out of its help.
  it.each(COMMANDS.map((c) => [c.name, c] as const))("warden %s --help lists every flag the command takes", async (name, command) => {
    const run = await warden([name, "--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${command.usage}\n`);
    const options = run.stdout.slice(run.stdout.indexOf("\nOptions:\n"));
    expect(options.length).toBeLessThan(run.stdout.length);
    for (const [flag, spec] of Object.entries({ ...COMMON, ...command.options })) {
      expect(options, `--${flag}`).toMatch(new RegExp(`^ {2}(-\\w, )?--${flag}\\b`, "m"));
      if ("short" in spec) expect(options, `-${spec.short}`).toMatch(new RegExp(`^ {2}-${spec.short}, --${flag}\\b`, "m"));
    }
  });
});

describe("did you mean", () => {
  it("a misspelt command: the nearest one, nothing run", async () => {
    const run = await warden(["enfoce"], {});
    expect(run).toEqual({ code: 1, stdout: "", stderr: `warden: unknown command "enfoce": did you mean "enforce"?\nRun 'warden --help' for the usage.\n` });
  });

  it("a word like no command: no guess", async () => {
    const run = await warden(["deploy"], {});
    expect(run.stderr).toBe(`warden: unknown command "deploy"\nRun 'warden --help' for the usage.\n`);
    expect(run.code).toBe(1);
  });

  it.each([
    ["enforce", "--aply", "--apply"],
    ["enforce", "--concurency", "--concurrency"],
    ["workflows", "--jsno", "--json"],
    ["restore", "--max-restore", "--max-restores"],
  ])("warden %s %s: did you mean %s", async (name, typo, meant) => {
    const run = await warden([name, typo], {});
    expect(run).toEqual({ code: 1, stdout: "", stderr: `warden ${name}: unknown option "${typo}": did you mean "${meant}"?\nRun 'warden ${name} --help' for the usage.\n` });
  });

  it("a flag typed without its dashes, to a command that takes no arguments", async () => {
    const run = await warden(["enforce", "apply"], {});
    expect(run).toEqual({ code: 1, stdout: "", stderr: `warden enforce: unexpected argument "apply": did you mean "--apply"?\nRun 'warden enforce --help' for the usage.\n` });
    expect((await warden(["workflows", "now"], {})).stderr).toMatch(/^warden workflows: unexpected argument "now" \(workflows takes options only\)\n/);
  });

  it("an option far from every flag: no guess, and no advice from node:util's parser", async () => {
    const run = await warden(["enforce", "--frobnicate"], {});
    expect(run.stderr).toBe(`warden enforce: unknown option "--frobnicate"\nRun 'warden enforce --help' for the usage.\n`);
    expect(run.stderr).not.toContain("place it at the end");
  });

  it("an option before the command says where options go; a misspelt --version is guessed", async () => {
    const run = await warden(["--apply", "enforce"], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden: unknown option "--apply" \(a command's options follow it: warden <command> \[options\]\)\n/);
    expect((await warden(["--verison"], {})).stderr).toMatch(/^warden: unknown option "--verison": did you mean "--version"\?\n/);
  });

  it.each([
    [["enforce", "--concurrency", "-1"], `--concurrency needs a value; one that starts with - is given as --concurrency=-1`],
    [["enforce", "--concurrency"], `--concurrency needs a value`],
  ])("warden %j: the flag without its value, in Warden's words on a line of their own", async (args, problem) => {
    // Before: node:util's three-line advice escaped into one, with literal \x0a between its lines.
    const run = await warden(args, {});
    expect(run).toEqual({ code: 1, stdout: "", stderr: `warden enforce: ${problem}\nRun 'warden enforce --help' for the usage.\n` });
  });

  it("edit distance counts a swap of neighbours as one edit; close words only", () => {
    expect(editDistance("enfoce", "enforce")).toBe(1);
    expect(editDistance("wrokflows", "workflows")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(closest("PIPLINE", ["enforce", "pipeline"])).toBe("pipeline");
    expect(closest("x", ["h"])).toBeUndefined();
    expect(closest("lint", ["enforce", "restore"])).toBeUndefined();
  });
});

describe("--debug", () => {
  const env = { WARDEN_POLICY: policyFile("version: 1\npipelines:\n  allow: []\n") };

  it.each([
    ["a missing argument", ["pipeline", "acme/x", "--debug"], {}, /^warden pipeline: a project path and a ref are required\n/],
    ["a bad number", ["enforce", "--concurrency", "0", "--debug"], { GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-x" }, /^warden enforce: --concurrency takes a whole number from 1 to 64, got "0"\n$/],
    ["an unset variable", ["enforce", "--debug"], {}, /^warden enforce: GITLAB_URL is not set\n$/],
    ["a mistyped address", ["enforce", "--debug"], { GITLAB_URL: "ftp://gitlab.example.com", GITLAB_TOKEN: "glpat-x" }, /^warden enforce: GITLAB_URL /],
    ["a bad policy", ["enforce", "--debug", "--policy", "/nonexistent/warden.yaml"], {}, /^warden enforce: /],
    // A review's finding: a policy GitLab would not give (here: GitLab not there) was a stack trace.
    ["a policy that cannot be read from GitLab", ["enforce", "--debug", "--policy-project", "99999"], { GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-x", WARDEN_POLICY: "" }, /^warden enforce: .*cannot be read/],
  ])("never turns a usage error into a stack trace: %s", async (_, args, more, message) => {
    const run = await warden(args, { ...env, ...more });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(STACK);
  });
});
