/**
 * What README.md and docs/ name in the code exists, the API contract's rules name real tests, and the
 * repository stands alone. Links and their #anchors are test/docs.test.ts's; this file checks what
 * the pages name without linking:
 * - every repository path in backticks (`lib/…`, `functions/…`, `bin/…`, `sim/…`, `test/…`,
 *   `examples/…`, `docs/…`, outside code blocks) is a file or folder;
 * - every function named in backticks as a call, `camelCase()` or `camelCase(args)` (lower camel case
 *   with a capital inside, so `rate(1 day)` and `import()` are not taken for Warden's), is declared in
 *   lib/, functions/, bin/, sim/ or test/support/;
 * - every rule of docs/api-contract.md ends with `Test:` or `Tests:` and the quoted titles of tests
 *   that exist;
 * - no tracked file names a place outside the repository: a relative path that climbs out of it, the
 *   folder this project was built in, or a home directory (root's, or a named user's on Linux, macOS or
 *   Windows; `me` is the docs' example user in example output).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const pages = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];
const prose = (page: string) => readFileSync(join(ROOT, page), "utf8").replace(/^```[\s\S]*?^```/gm, "");
const backticked = (page: string) => [...prose(page).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

/** Every file under these folders, recursively, with its text. */
function sources(...folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".ts"))
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8")),
  );
}

it("every repository path README.md and docs/ name in backticks exists", () => {
  const missing = pages.flatMap((page) =>
    backticked(page)
      .filter((span) => /^(lib|functions|bin|sim|test|examples|docs)\/[\w./-]*$/.test(span))
      .filter((path) => !existsSync(join(ROOT, path)))
      .map((path) => `${page}: ${path}`),
  );
  expect(missing).toEqual([]);
});

it("every function README.md and docs/ name as a call in backticks is declared in the code", () => {
  const code = sources("lib", "functions", "bin", "sim", "test/support").join("\n");
  const declared = (name: string) =>
    new RegExp(`(function\\*?\\s+${name}\\b|\\b(const|let|var)\\s+${name}\\s*[=:]|^\\s*(export\\s+)?(async\\s+)?(static\\s+)?${name}\\s*[(<]|\\b${name}\\s*:\\s*(async\\s+)?(\\(|function))`, "m").test(code);
  const named = pages.flatMap((page) => backticked(page).flatMap((span) => /^([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\([^()]*\)$/.exec(span)?.[1] ?? []).map((name) => ({ page, name })));
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter(({ name }) => !declared(name)).map(({ page, name }) => `${page}: ${name}()`)).toEqual([]);
});

it("every rule of docs/api-contract.md names the tests that check it, and they exist", () => {
  const tests = readdirSync(join(ROOT, "test"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".test.ts"))
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");
  // A rule is a list item that opens with a bold name; its continuation lines are indented.
  const rules = [...prose("docs/api-contract.md").matchAll(/^- \*\*(.+?)\*\*(.*(?:\n {2}.*)*)/gm)].map((m) => ({ rule: m[1]!, text: m[2]!.replace(/\n {2}/g, " ") }));
  expect(rules.length).toBeGreaterThan(60);
  const untested = rules.filter(({ text }) => !/ Tests?: "/.test(text)).map(({ rule }) => rule);
  expect(untested).toEqual([]);
  const titles = rules.flatMap(({ rule, text }) => [...text.slice(text.search(/ Tests?: "/)).matchAll(/"([^"]+)"/g)].map((m) => ({ rule, title: m[1]! })));
  expect(titles.filter(({ title }) => !tests.includes(`(${JSON.stringify(title)}`)).map(({ rule, title }) => `${rule}: "${title}"`)).toEqual([]);
});

it("no tracked file names a place outside the repository", () => {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  const machinePath = /(?<![\w.:/-])(\/work\/|\/root\/|\/(home|Users)\/(?!me\b)[\w.-]+\/|[A-Z]:\\Users\\)/g;
  const outside: string[] = [];
  for (const file of tracked.filter((f) => existsSync(join(ROOT, f)))) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const [found] of text.matchAll(machinePath)) outside.push(`${file}: ${found}`);
    for (const [climb] of text.matchAll(/(?:\.\.\/)+[\w.-]*/g)) {
      if (relative(ROOT, resolve(ROOT, dirname(file), climb)).startsWith("..")) outside.push(`${file}: ${climb}`);
    }
  }
  expect(outside).toEqual([]);
});
