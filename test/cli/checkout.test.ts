/**
 * The CLI from a clone, as a newcomer runs it: `git clone`, `npm ci`, then `npm run warden` from the
 * sources, or `npm run build` once (dist/warden.js, which dist/ being ignored by git no clone has;
 * `npm pack` builds it too, its `prepack`) and `npx --no-install warden`. The build is no install script: npm 11
 * lists a package's `prepare` among those a user must approve, even in a tarball where it never runs.
 *
 * What is not run here: `npm ci` itself (installing the devDependencies again takes minutes; the clone
 * uses this checkout's node_modules), nor npm installing from a git URL (the same install of the
 * devDependencies, in npm's clone, where the `prepack` builds the CLI).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runToEnd as run } from "../support/cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const temp = mkdtempSync(join(tmpdir(), "warden-checkout-"));
const clone = join(temp, "warden");
writeFileSync(join(temp, "npmrc"), "");
writeFileSync(join(temp, "global-npmrc"), "");
// npm and git of the tests' Node 24, offline, with no npmrc or cache of this machine's.
const ENV = {
  PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`,
  HOME: temp,
  npm_config_cache: join(temp, "empty-cache"),
  npm_config_userconfig: join(temp, "npmrc"),
  npm_config_globalconfig: join(temp, "global-npmrc"),
  npm_config_offline: "true",
  npm_config_update_notifier: "false",
  GIT_CONFIG_NOSYSTEM: "1",
};

beforeAll(async () => {
  const cloned = await run("git", ["clone", "--quiet", `file://${ROOT}`, clone], { cwd: temp, env: ENV });
  expect(cloned.code, cloned.stderr).toBe(0);
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"));
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

it("a clone runs the CLI from its sources with `npm run warden`; `npm run build` builds it, then `npx --no-install warden` runs it, from the clone and from a folder inside it", async () => {
  expect(existsSync(join(clone, "dist"))).toBe(false);
  expect(await run("npm", ["run", "--silent", "warden", "--", "--version"], { cwd: clone, env: ENV })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
  const build = await run("npm", ["run", "build"], { cwd: clone, env: ENV });
  expect(build.code, build.stderr).toBe(0);
  expect(existsSync(join(clone, "dist/warden.js"))).toBe(true);
  expect(await run("npm", ["exec", "--", "warden", "--version"], { cwd: clone, env: ENV })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
  mkdirSync(join(clone, "policies"));
  expect(await run("npx", ["--no-install", "warden", "--version"], { cwd: join(clone, "policies"), env: ENV })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
}, 120_000);
