/**
 * README.md sends the reader to docs/cli.md for "every command and flag": every option a command takes
 * (bin/cli/*.ts, the options main.ts parses) is named there (`--mr-note-project` and `--mr-note-iid`
 * were not), and every `--flag` the docs give a command is one it takes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { COMMANDS, COMMON } from "../../bin/cli/main.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(resolve(ROOT, file), "utf8");

it("README.md points to docs/cli.md for every command and flag", () => {
  expect(read("README.md")).toMatch(/every command and flag[^\n]*\(docs\/cli\.md\)/);
});

it("docs/cli.md names every option of every command", () => {
  const cli = read("docs/cli.md");
  const options = COMMANDS.flatMap((command) => [...Object.keys(COMMON), ...Object.keys(command.options)].map((option) => `${command.name} --${option}`));
  expect(options.filter((o) => !cli.includes(o.split(" ")[1]!))).toEqual([]);
});

it("every --flag README.md and docs/ give a `warden <command>` line is one that command takes", () => {
  const pages = ["README.md", ...readdirSync(resolve(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), "examples/gitlab-ci.yml"];
  const unknown: string[] = [];
  for (const page of pages) {
    for (const [, name, rest] of read(page).matchAll(/warden (enforce|apply|exempt|pipeline|policy|report|restore|watch|workflows)\b([^\n`]*)/g)) {
      const command = COMMANDS.find((c) => c.name === name)!;
      const takes = new Set([...Object.keys(COMMON), ...Object.keys(command.options)]);
      for (const [, flag] of rest!.matchAll(/ --([a-z][a-z-]+)/g)) if (!takes.has(flag!)) unknown.push(`${page}: warden ${name} --${flag}`);
    }
  }
  expect(unknown).toEqual([]);
});
