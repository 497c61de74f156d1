import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Test files that must each have a process of their own (vitest's isolation): the functions' modules
 * make their clients and handlers as they load, from the environment the file set, as a Lambda
 * container does; and the config's tests keep their bundles per file (test/support/sst/deploy.ts).
 */
const ISOLATED = ["test/functions/**/*.test.ts", "test/sst-config*.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/shared-worker.ts", "test/support/no-credentials.ts", "test/support/temp-dir.ts"],
    // Most tests wait on loopback servers and child processes rather than compute, so one worker per
    // core (vitest's default leaves one core idle: a single worker on a 2-core CI machine): 833 s -> 529 s here.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The CLI's tests run the built dist/warden.js, as users do (test/support/cli.ts).
    projects: [
      { extends: true, test: { name: "isolated", include: ISOLATED } },
      // Every other file shares its worker's modules with the files before it: importing the sources
      // afresh for each file was about 0.85 s of a worker's time a file, a third of the suite's wall
      // time. test/support/shared-worker.ts gives each file what a process of its own would.
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: ISOLATED, isolate: false } },
    ],
  },
});
