/**
 * Runs once before any test file (vitest globalSetup), in vitest's own process: builds the CLI as
 * `npm run build` does (dist/warden.js and the CLI it loads), which the CLI's tests run as users do
 * (test/support/cli.ts). Once a run rather than once a file: about a second of esbuild each time, in
 * the two dozen files that start the CLI.
 *
 * It also makes this run's own directory for Node's compile cache, which those tests give the CLI
 * (NODE_COMPILE_CACHE), and test/support/sst/build.ts each Pulumi evaluation: the suite starts the CLI
 * a few hundred times and the evaluations a hundred, and compiling the CLI's bundle (or Pulumi's
 * modules) afresh was about a sixth of each start (0.49 s against 0.41 s for `--help`). Two CLI test
 * files ran 12 % faster with it, two sst-config ones 12 % too. A directory of this run's alone, removed
 * when it ends: a cache another user could write to would be code those processes run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildCli } from "../../bin/build-cli.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The compile cache directory of this run's child processes of Node. */
    compileCache: string;
  }
}

export function setup(project: TestProject): () => void {
  buildCli();
  const cache = mkdtempSync(join(tmpdir(), "warden-compile-cache-"));
  project.provide("compileCache", cache);
  return () => rmSync(cache, { recursive: true, force: true });
}
