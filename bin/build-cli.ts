#!/usr/bin/env node
/**
 * `npm pack`'s prepack: the CLI as one ESM file, dist/warden.js, that runs on any Node the package's
 * `engines` names, with every library bundled in (the package installs with no dependency to fetch).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

export const BUILT_CLI = fileURLToPath(new URL("../dist/warden.js", import.meta.url));

/**
 * Builds bin/warden.ts into `outfile`, replaced in one rename: a run or a pack never reads half a
 * file, even while another build (a test, a second `npm pack`) writes the same one.
 */
export function buildCli(outfile: string = BUILT_CLI): string {
  const { outputFiles } = buildSync({
    entryPoints: [fileURLToPath(new URL("warden.ts", import.meta.url))],
    outfile,
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    // The oldest Node of `engines`: esbuild fails the build on syntax that Node cannot run.
    target: "node22.19",
    // Some bundled libraries are CommonJS and require() Node's modules, which ESM lacks.
    banner: { js: "import { createRequire as __wardenRequire } from 'node:module'; const require = __wardenRequire(import.meta.url);" },
    logLevel: "warning",
  });
  mkdirSync(dirname(outfile), { recursive: true });
  const temporary = `${outfile}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, outputFiles[0]!.contents, { mode: 0o755 });
  renameSync(temporary, outfile);
  return outfile;
}

// Its message goes to stderr: stdout is `npm pack --json`'s.
if (process.argv[1] === fileURLToPath(import.meta.url)) process.stderr.write(`built ${buildCli()}\n`);
