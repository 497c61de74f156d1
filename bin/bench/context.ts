/** What a row kind measures with: the settings, the bench's policy and the bundled runners. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCli } from "../build-cli.ts";
import { bundleRunners, type Runner } from "./bundle.ts";
import { benchDir, removeDir } from "./leftovers.ts";
import { runProcess } from "./run-process.ts";
import type { RunResult } from "./run-result.ts";
import type { Settings } from "./settings.ts";

export interface Bench {
  settings: Settings;
  /** The policy file every run enforces. */
  policy: string;
  /** The packed CLI, built as `npm pack` (bin/build-cli.ts) builds dist/warden.js (into the bench's own directory). */
  cli: string;
  /** Writes a policy file of the bench's own (a row's variation of the policy), returning its path. */
  writePolicy(name: string, text: string): string;
  /** Runs a runner with the settings' Node options and timeout (or `timeoutS`). */
  run<T extends RunResult = RunResult>(runner: Runner, args: string[], options?: { env?: NodeJS.ProcessEnv; timeoutS?: number }): Promise<T>;
  progress(text: string): void;
  /** Removes the bench's directory (its bundles and policies: about 13 MB). */
  close(): void;
}

const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - { group: "partners/contractor-x", projects: ["acme/mobile/**"], maxAccess: developer }
    exempt:
      - project: "acme/legacy/**"
  guard: { maxRemovals: 1000000 }
`;

export { POLICY as BENCH_POLICY };

export async function startBench(settings: Settings): Promise<Bench> {
  const work = benchDir("warden-bench-");
  const policy = join(work, "policy.yaml");
  writeFileSync(policy, POLICY);
  const runners = await bundleRunners(work);
  const writePolicy = (name: string, text: string) => {
    const file = join(work, name);
    writeFileSync(file, text);
    return file;
  };
  return {
    settings,
    policy,
    cli: buildCli(join(work, "cli", "warden.js")),
    writePolicy,
    run: (runner, args, options = {}) => runProcess(runners[runner], args, { nodeOptions: settings.nodeOptions, timeoutS: options.timeoutS ?? settings.timeoutS, env: options.env }),
    progress: (text) => process.stderr.write(`${text}\n`),
    close: () => removeDir(work),
  };
}
