/**
 * Runs once before any test file (vitest globalSetup), in vitest's own process: builds the CLI as npm's
 * `prepare` does (dist/warden.js and the CLI it loads), which the CLI's tests run as users do
 * (test/support/cli.ts). Once a run rather than once a file: about a second of esbuild each time, in
 * the two dozen files that start the CLI.
 */
import { buildCli } from "../../bin/build-cli.ts";

export function setup(): void {
  buildCli();
}
