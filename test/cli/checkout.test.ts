/**
 * The CLI from a clone, as a newcomer runs it: `git clone`, `npm ci`, `npx warden`. npm runs the
 * package's `prepare` after `npm ci` (and before packing, and in its own clone when it installs from
 * git), and `prepare` builds dist/warden.js, which dist/ being ignored by git no clone has.
 *
 * What is not run here: `npm ci` itself (installing the devDependencies again takes minutes; the clone
 * uses this checkout's node_modules and runs `npm run prepare`, the script npm ci runs), nor npm
 * installing from a git URL (the same install of the devDependencies, in npm's clone).
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

it("the prepare npm ci runs builds the CLI a clone lacks: then `npx warden` runs it, from the clone and from a folder inside it", async () => {
  expect(existsSync(join(clone, "dist"))).toBe(false);
  const prepare = await run("npm", ["run", "prepare"], { cwd: clone, env: ENV });
  expect(prepare.code, prepare.stderr).toBe(0);
  expect(existsSync(join(clone, "dist/warden.js"))).toBe(true);
  expect(await run("npm", ["exec", "--", "warden", "--version"], { cwd: clone, env: ENV })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
  mkdirSync(join(clone, "policies"));
  expect(await run("npx", ["warden", "--version"], { cwd: join(clone, "policies"), env: ENV })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
}, 120_000);
