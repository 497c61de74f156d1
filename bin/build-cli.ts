#!/usr/bin/env node
/**
 * npm's `prepare` (after `npm ci` in a checkout, on `npm pack`, in npm's clone for a git install): the
 * CLI as one ESM file, dist/warden.js, that runs on any Node the package's `engines` names, with
 * every library bundled in (the package installs with no dependency to fetch), and beside it the
 * licences of those libraries, which their licences ask a copy to carry.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { WARDEN_VERSION } from "../lib/jobs/index.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUILT_CLI = join(ROOT, "dist/warden.js");

/**
 * Builds bin/warden.ts into `outfile`, replaced in one rename: a run or a pack never reads half a
 * file, even while another build (a test, a second `npm pack`) writes the same one.
 */
export function buildCli(outfile: string = BUILT_CLI): string {
  const { outputFiles, metafile } = buildSync({
    absWorkingDir: ROOT,
    entryPoints: ["bin/warden.ts"],
    outfile,
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    // The oldest Node of `engines`: esbuild fails the build on syntax that Node cannot run.
    target: "node22.19",
    // Some bundled libraries are CommonJS and require() Node's modules, which ESM lacks.
    banner: { js: "import { createRequire as __wardenRequire } from 'node:module'; const require = __wardenRequire(import.meta.url);" },
    // The bundle carries no package.json: reports name the version from this (lib/jobs/version.ts).
    define: { __WARDEN_VERSION__: JSON.stringify(WARDEN_VERSION) },
    logLevel: "warning",
    metafile: true,
  });
  mkdirSync(dirname(outfile), { recursive: true });
  replace(join(dirname(outfile), "THIRD-PARTY-LICENSES.txt"), licences(Object.keys(metafile.inputs)), 0o644);
  replace(outfile, outputFiles[0]!.contents, 0o755);
  return outfile;
}

function replace(file: string, contents: string | Uint8Array, mode: number): void {
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, contents, { mode });
  renameSync(temporary, file);
}

/** Each bundled package's name, version, licence and licence text, from the build's inputs. */
function licences(inputs: string[]): string {
  const packages = new Set(inputs.flatMap((input) => /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(resolve(ROOT, input))?.[1] ?? []));
  return [...packages]
    .map((dir) => {
      const { name, version, license } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string; license?: string };
      const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
      return { name, text: `${name}@${version} (${license ?? "licence not stated"})\n\n${file ? readFileSync(join(dir, file), "utf8").trim() : "(the package has no licence file)"}\n` };
    })
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((p) => p.text)
    .join("\n---\n\n");
}

// Its message goes to stderr: stdout is `npm pack --json`'s.
if (process.argv[1] === fileURLToPath(import.meta.url)) process.stderr.write(`built ${buildCli()}\n`);
