#!/usr/bin/env node
/**
 * `npm run build`, and npm's `prepack` (on `npm pack`, in npm's clone for a git install; not `prepare`,
 * which npm 11 lists in a tarball among the install scripts a user must approve, though it never runs there): the
 * CLI as two ESM files that run on any Node the package's `engines` names, with every library bundled
 * in (the package installs with no dependency to fetch): dist/warden.js, the small entry that checks
 * the Node version and gives the process its heap settings (bin/cli/heap-settings.ts: it replaces
 * itself, so it must not parse the whole CLI first), and dist/warden-cli.js, the CLI it then loads;
 * and beside them the licences of those libraries, which their licences ask a copy to carry.
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
 * Builds bin/warden.ts into `outfile` and the CLI it loads (bin/cli/main.ts) into CLI_FILE beside it,
 * each replaced in one rename, the CLI first: a run or a pack never reads half a file, even while
 * another build (a test, a second `npm pack`) writes the same ones.
 */
export function buildCli(outfile: string = BUILT_CLI): string {
  const cli = bundle("bin/cli/main.ts", join(dirname(outfile), CLI_FILE));
  const entry = bundle("bin/warden.ts", outfile);
  mkdirSync(dirname(outfile), { recursive: true });
  replace(join(dirname(outfile), "THIRD-PARTY-LICENSES.txt"), licences([...cli.inputs, ...entry.inputs]), 0o644);
  replace(join(dirname(outfile), CLI_FILE), cli.contents, 0o644);
  replace(outfile, entry.contents, 0o755);
  return outfile;
}

/** The CLI's own file, beside dist/warden.js, which loads it by this name. */
const CLI_FILE = "warden-cli.js";

function bundle(entry: string, outfile: string): { contents: Uint8Array; inputs: string[] } {
  const { outputFiles, metafile } = buildSync({
    absWorkingDir: ROOT,
    entryPoints: [entry],
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
    define: { __WARDEN_VERSION__: JSON.stringify(WARDEN_VERSION), __WARDEN_CLI_FILE__: JSON.stringify(`./${CLI_FILE}`) },
    logLevel: "warning",
    metafile: true,
  });
  return { contents: outputFiles[0]!.contents, inputs: Object.keys(metafile.inputs) };
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
