import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/no-credentials.ts", "test/support/temp-dir.ts"],
    // Most tests wait on loopback servers and child processes rather than compute, so one worker per
    // core (vitest's default leaves one core idle: a single worker on a 2-core CI machine): 833 s -> 529 s here.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The CLI's tests run the built dist/warden.js, as users do (test/support/cli.ts).
    include: ["test/**/*.test.ts"],
  },
});
