/**
 * README.md's "Try it: two commands" says what `npm run demo` does and which exit code each step gives;
 * examples/demo.yaml's header says how many strays the demo's organisation holds. Both are checked
 * against the demo itself (bin/demo.ts, run as `npm run demo` runs it: `node bin/demo.ts`).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
let output = "";

beforeAll(async () => {
  output = await new Promise<string>((done, fail) =>
    execFile(process.execPath, ["bin/demo.ts"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => (err ? fail(err) : done(stdout))),
  );
}, 60_000);

/** Each step of the demo: its command line (after "warden ") and the exit code it printed. */
function steps(): { command: string; code: number }[] {
  return [...output.matchAll(/^━━ \d+\. .*?: warden (\S+(?: --\S+)*)[^\n]*\n[\s\S]*?^exit code (\d+)$/gm)].map((m) => ({ command: m[1]!, code: Number(m[2]) }));
}

it("README: enforce's part is a dry run (exit 2), --apply (exit 0), a dry run again (exit 0); workflows' a dry run (exit 2), --apply (exit 1: two refused) and a dry run (exit 2)", () => {
  const readme = readFileSync(resolve(ROOT, "README.md"), "utf8");
  expect(readme).toMatch(/a dry run \(exit 2[\s\S]*?`--apply` \(exit 0\)[\s\S]*?dry run again \(exit 0/);
  expect(readme).toMatch(/`warden workflows` on a simulated n8n: a dry run \(exit 2\), `--apply` \(exit 1: n8n refuses to activate two\s+workflows/);
  const enforce = steps().filter((s) => s.command.startsWith("enforce")).slice(0, 3).map((s) => s.code);
  expect(enforce).toEqual([2, 0, 0]);
  const workflows = steps().filter((s) => s.command.startsWith("workflows")).map((s) => s.code);
  expect(workflows).toEqual([2, 1, 2]);
  expect(output).toMatch(/Warden workflows \(dry run\): 2 workflows out of policy\n[\s\S]*?exit code 2\s*$/);
});

it("examples/demo.yaml's header counts the stray project shares as README and the demo do", () => {
  const demo = /(\d+) stray project shares and (\d+) stray group shares/.exec(output);
  expect(demo).not.toBeNull();
  const actual = Number(demo![1]);
  const said = (file: string) => Number(/~([\d,]+) stray project shares/.exec(readFileSync(resolve(ROOT, file), "utf8"))?.[1]);
  for (const file of ["README.md", "examples/demo.yaml"]) expect({ file, approx: Math.round(said(file) / 10) }).toEqual({ file, approx: Math.round(actual / 10) });
});
