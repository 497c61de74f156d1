#!/usr/bin/env node
/**
 * `npm run demo`: Warden's jobs against the embedded GitLab and n8n simulators — no AWS, no network.
 * For each, a dry run, then --apply, then a dry run again, through the same entry point as the CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { generateOrganisation, startGitLabSim } from "../sim/gitlab/index.ts";
import { generateWorkflows, startN8nSim } from "../sim/n8n/index.ts";
import { main } from "./cli/main.ts";

const policy = fileURLToPath(new URL("../examples/demo.yaml", import.meta.url));
// With the audit events a Premium GitLab keeps of who made each share: the plan says who added each stray.
const { dataset, intents } = generateOrganisation({ projects: 2_000, seed: 2026, groupShares: true, shareHistory: true });
const gitlab = await startGitLabSim({ dataset, latencyMs: 5 });
const n8n = await startN8nSim({ generation: 2, workflows: generateWorkflows({ count: 40, seed: 13 }), latencyMs: 5 });
const count = (intent: string, kind?: "project" | "group") => intents.filter((i) => i.intent === intent && (kind === undefined || i.kind === kind)).length;

const out = process.stdout;
out.write(
  `Simulated GitLab at ${gitlab.url}: ${dataset.projects.length} projects in ${dataset.groups.length} groups, ` +
    `${intents.length} shares (${count("stray", "project")} stray project shares and ${count("stray", "group")} stray group shares, ` +
    `${count("exempt")} exempt by acme/legacy/**).\n` +
    `Simulated n8n 2.x at ${n8n.url}: ${n8n.workflows.length} workflows, ${n8n.workflows.filter((w) => w.active).length} active.\n` +
    `Policy: examples/demo.yaml\n`,
);

const env = { ...process.env, GITLAB_URL: gitlab.url, GITLAB_TOKEN: gitlab.token, N8N_URL: n8n.url, N8N_API_KEY: n8n.apiKey, WARDEN_POLICY: policy };
// Audit lines and progress would interleave with the reports; the reports say it all here. The
// apply's audit lines (one JSON line per removal) are kept in a file, for restore to read.
const auditDir = mkdtempSync(join(tmpdir(), "warden-demo-"));
const audit = join(auditDir, "enforce-apply.audit.jsonl");
const steps: [string, string[], { auditTo?: string }?][] = [
  ["Plan project and group shares (dry run, the default)", ["enforce"]],
  ["Apply: stray project shares and stray group shares are removed, each group read again to confirm", ["enforce", "--apply"], { auditTo: audit }],
  ["Plan again: the organisation is in policy", ["enforce"]],
  ["Restore from the apply's audit lines (dry run): each removed share is read first and judged by the policy, which does not allow them", ["restore", audit]],
  ["Restore --apply --include-stray: every removed share is back with its access level, expiry and custom role", ["restore", audit, "--apply", "--include-stray"]],
  ["Plan again: the restored strays are planned for removal once more", ["enforce"]],
  ["Plan the n8n workflows", ["workflows"]],
  ["Apply (n8n refuses to activate a workflow without a trigger node: reported, the rest go on)", ["workflows", "--apply"]],
  ["Plan again: only what n8n refused is left", ["workflows"]],
];
for (const [n, [title, args, { auditTo } = {}]] of steps.entries()) {
  out.write(`\n━━ ${n + 1}. ${title}: warden ${args.join(" ")}\n\n`);
  let lines = "";
  const stderr = new Writable({ write: (chunk, _encoding, done) => done(void (lines += String(chunk))) });
  const code = await main(args, { stdout: out, stderr, env });
  if (auditTo) {
    writeFileSync(auditTo, lines);
    out.write(`\n(its ${lines.split("\n").filter(Boolean).length} audit lines are kept in ${auditTo} for the restore below, until the demo ends)\n`);
  }
  out.write(`\nexit code ${code}\n`);
}
await Promise.all([gitlab.close(), n8n.close()]);
// The simulators are gone with the process: so are the audit lines they were about.
rmSync(auditDir, { recursive: true, force: true });

