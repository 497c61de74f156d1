#!/usr/bin/env node
/**
 * `npm run demo`: Warden's main job against the embedded GitLab simulator — no AWS, no network.
 * A dry run, then --apply, then a dry run again, through the same entry point as the `warden` CLI.
 */
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { generateOrganisation, startGitLabSim } from "../test/sim/gitlab/index.ts";
import { main } from "./cli/main.ts";

const policy = fileURLToPath(new URL("../examples/demo.yaml", import.meta.url));
const { dataset, intents } = generateOrganisation({ projects: 2_000, seed: 2026 });
const gitlab = await startGitLabSim({ dataset, latencyMs: 5 });
const count = (intent: string) => intents.filter((i) => i.intent === intent).length;

const out = process.stdout;
out.write(
  `Simulated GitLab at ${gitlab.url}: ${dataset.projects.length} projects in ${dataset.groups.length} groups, ` +
    `${intents.length} shares (${count("stray")} stray, ${count("exempt")} exempt by acme/legacy/**).\n` +
    `Policy: examples/demo.yaml\n`,
);

const env = { ...process.env, GITLAB_URL: gitlab.url, GITLAB_TOKEN: gitlab.token, WARDEN_POLICY: policy };
// Audit lines and progress would interleave with the reports; the reports say it all here.
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
const steps: [string, string[]][] = [
  ["1. Plan (dry run, the default)", ["enforce"]],
  ["2. Apply", ["enforce", "--apply"]],
  ["3. Plan again: the organisation is in policy", ["enforce"]],
];
for (const [title, args] of steps) {
  out.write(`\n━━ ${title}: warden ${args.join(" ")}\n\n`);
  const code = await main(args, { stdout: out, stderr: quiet, env });
  out.write(`\nexit code ${code}\n`);
}
await gitlab.close();

