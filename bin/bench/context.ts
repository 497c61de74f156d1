/** What a row kind measures with: the settings, the bench's policy and the bundled runners. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleRunners, type Runner } from "./bundle.ts";
import { runProcess } from "./run-process.ts";
import type { RunResult } from "./run-result.ts";
import type { Settings } from "./settings.ts";

export interface Bench {
  settings: Settings;
  /** The policy file every run enforces. */
  policy: string;
  /** Runs a runner with the settings' Node options and timeout (or `timeoutS`). */
  run<T extends RunResult = RunResult>(runner: Runner, args: string[], options?: { env?: NodeJS.ProcessEnv; timeoutS?: number }): Promise<T>;
  progress(text: string): void;
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

export async function startBench(settings: Settings): Promise<Bench> {
  const work = mkdtempSync(join(tmpdir(), "warden-bench-"));
  const policy = join(work, "policy.yaml");
  writeFileSync(policy, POLICY);
  const runners = await bundleRunners(work);
  return {
    settings,
    policy,
    run: (runner, args, options = {}) => runProcess(runners[runner], args, { nodeOptions: settings.nodeOptions, timeoutS: options.timeoutS ?? settings.timeoutS, env: options.env }),
    progress: (text) => process.stderr.write(`${text}\n`),
  };
}
