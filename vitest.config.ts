import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    setupFiles: ["test/support/no-credentials.ts"],
    // Most tests wait on loopback servers and child processes rather than compute, so one worker per
    // core (vitest's default leaves one core idle: a single worker on a 2-core CI machine): 833 s -> 529 s here.
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: "sources", include: ["test/**/*.test.ts"] } },
      // The CLI's end-to-end tests again, on the built dist/warden.js (test/support/cli.ts): a dry run,
      // --apply and the guard, a target, a saved plan applied, restore, a watch, and signals (their handlers live in the entry file).
      {
        extends: true,
        test: { name: "built-cli", include: ["test/cli/{enforce,enforce-target,apply,restore,signals,watch}.test.ts"], env: { WARDEN_TEST_CLI: "built" } },
      },
    ],
  },
});
