#!/usr/bin/env node
/**
 * `npm run demo`: Warden's jobs against the embedded GitLab and n8n simulators — no AWS, no network.
 * For each, a dry run, then --apply, then a dry run again, through the same entry point as the CLI.
 */
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { generateOrganisation, startGitLabSim } from "../test/sim/gitlab/index.ts";
import { generateWorkflows, startN8nSim } from "../test/sim/n8n/index.ts";
import { main } from "./cli/main.ts";

const policy = fileURLToPath(new URL("../examples/demo.yaml", import.meta.url));
const { dataset, intents } = generateOrganisation({ projects: 2_000, seed: 2026 });
const gitlab = await startGitLabSim({ dataset, latencyMs: 5 });
const n8n = await startN8nSim({ generation: 2, workflows: generateWorkflows({ count: 40, seed: 13 }), latencyMs: 5 });
const count = (intent: string) => intents.filter((i) => i.intent === intent).length;

const out = process.stdout;
out.write(
  `Simulated GitLab at ${gitlab.url}: ${dataset.projects.length} projects in ${dataset.groups.length} groups, ` +
    `${intents.length} shares (${count("stray")} stray, ${count("exempt")} exempt by acme/legacy/**).\n` +
    `Simulated n8n 2.x at ${n8n.url}: ${n8n.workflows.length} workflows, ${n8n.workflows.filter((w) => w.active).length} active.\n` +
    `Policy: examples/demo.yaml\n`,
);

const env = { ...process.env, GITLAB_URL: gitlab.url, GITLAB_TOKEN: gitlab.token, N8N_URL: n8n.url, N8N_API_KEY: n8n.apiKey, WARDEN_POLICY: policy };
// Audit lines and progress would interleave with the reports; the reports say it all here.
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
const steps: [string, string[]][] = [
  ["1. Plan (dry run, the default)", ["enforce"]],
  ["2. Apply", ["enforce", "--apply"]],
  ["3. Plan again: the organisation is in policy", ["enforce"]],
  ["4. Plan the n8n workflows", ["workflows"]],
  ["5. Apply (n8n refuses to activate a workflow without a trigger node: reported, the rest go on)", ["workflows", "--apply"]],
  ["6. Plan again: only what n8n refused is left", ["workflows"]],
];
for (const [title, args] of steps) {
  out.write(`\n━━ ${title}: warden ${args.join(" ")}\n\n`);
  const code = await main(args, { stdout: out, stderr: quiet, env });
  out.write(`\nexit code ${code}\n`);
}
await Promise.all([gitlab.close(), n8n.close()]);

