/**
 * The package as a policy repository's CI installs it: `npm pack` (its prepack builds dist/warden.js),
 * installed from the tarball into an empty prefix with no network and an empty npm cache (every
 * dependency must come from the tarball), then run from another directory that holds a warden.yaml.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { MINIMUM_NODE } from "../../bin/cli/node-check.ts";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { runToEnd as run } from "../support/cli.ts";
import { EVERYTHING_STRAY, groupSharesPolicy } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";
import { json, serve } from "../support/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const temp = mkdtempSync(join(tmpdir(), "warden-package-"));
// npm, and the `node` that dist/warden.js's `#!/usr/bin/env node` finds, are the tests' Node 24.
const PATH = `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`;
// A clean environment: no npmrc, registry or cache of this machine's; --offline on every command.
writeFileSync(join(temp, "npmrc"), "");
writeFileSync(join(temp, "global-npmrc"), "");
const NPM_ENV = {
  PATH,
  HOME: temp,
  npm_config_cache: join(temp, "empty-cache"),
  npm_config_userconfig: join(temp, "npmrc"),
  npm_config_globalconfig: join(temp, "global-npmrc"),
  npm_config_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};

const prefix = join(temp, "prefix");
const project = join(temp, "policy-repo");
const installed = join(prefix, "bin", "warden");
let packed: { filename: string; files: { path: string }[] };
let sim: GitLabSim;
let strays: number;
/** The policy repository's project in the simulator, with a merge request open on it. */
let policyRepo: { id: number; path: string };

beforeAll(async () => {
  const pack = await run("npm", ["pack", "--pack-destination", temp, "--json"], { cwd: ROOT, env: NPM_ENV });
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;
  const org = generateOrganisation({ projects: 200, seed: 11, groupShares: true });
  strays = org.intents.filter((i) => i.intent === "stray").length;
  const repo = org.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
  policyRepo = { id: repo.id, path: repo.path_with_namespace };
  org.dataset.mergeRequests = [{ project_id: repo.id, iid: 1 }];
  sim = await startGitLabSim({ dataset: org.dataset });
  // The target branch's policy removes every share: the merge request's (groupSharesPolicy) would stop removing most.
  sim.repositories.commit(repo, { "warden.yaml": EVERYTHING_STRAY });
  mkdirSync(project);
  writeFileSync(join(project, "warden.yaml"), groupSharesPolicy());
}, 60_000);
afterAll(async () => {
  await sim?.close();
  rmSync(temp, { recursive: true, force: true });
});

describe.sequential("the packed CLI", () => {
  it("ships the built CLI with its libraries' licences, README.md and what it links to (the docs, the report's schema, the examples, SECURITY.md), and package.json, nothing else", () => {
    const shipped = packed.files.map((f) => f.path).sort();
    const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
    // The schema `warden enforce|restore|report --help` and docs/cli.md point a --format json user to (a review's finding: not shipped).
    expect(shipped).toEqual(["README.md", "SECURITY.md", "dist/THIRD-PARTY-LICENSES.txt", "dist/warden-cli.js", "dist/warden.js", ...docs, "docs/report.schema.json", "examples/demo.yaml", "examples/gitlab-ci.yml", "examples/warden.yaml", "package.json"].sort());
    // A review's finding: the installed README linked to a dozen files the package did not hold.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
    expect([...new Set(links)].filter((target) => !shipped.includes(target.replace(/^\.\//, "")))).toEqual([]);
  });

  it("installs from the tarball into an empty prefix, offline with an empty npm cache: it needs no dependency, and runs no script", async () => {
    const install = await run("npm", ["install", "--global", "--prefix", prefix, join(temp, packed.filename)], { cwd: temp, env: NPM_ENV });
    expect(install.code, install.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(prefix, "lib/node_modules/warden/package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({ bin: { warden: "dist/warden.js" }, engines: { node: `>=${MINIMUM_NODE}` } });
    expect(manifest["dependencies"]).toBeUndefined();
    // npm 11 lists a tarball's `prepare` among the install scripts a user must approve (it never runs for a tarball).
    expect(Object.keys((manifest["scripts"] ?? {}) as object).filter((name) => ["preinstall", "install", "postinstall", "prepare"].includes(name))).toEqual([]);
    expect(readFileSync(installed, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    const licences = readFileSync(join(prefix, "lib/node_modules/warden/dist/THIRD-PARTY-LICENSES.txt"), "utf8");
    for (const library of ["undici", "zod", "yaml", "p-map", "p-queue", "@aws-sdk/client-s3"]) expect(licences).toMatch(new RegExp(`^${library}@\\d.*\\n\\n\\S`, "m"));
  }, 30_000);

  it("warden --version prints the package's version, from any directory", async () => {
    expect(await run(installed, ["--version"], { cwd: temp, env: { PATH } })).toEqual({ code: 0, stdout: `warden ${VERSION}\n`, stderr: "" });
  });

  it("warden enforce reads ./warden.yaml of the directory it runs in: a dry run exits 2 with the strays, sending only GETs", async () => {
    sim.resetCounters();
    const dry = await run(installed, ["enforce", "--json"], { cwd: project, env: { PATH, GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token } });
    expect(dry.code, dry.stderr).toBe(2);
    const report = reportJson(dry.stdout) as EnforceReport;
    expect(report).toMatchObject({ job: "enforce", dryRun: true, summary: { strays, removed: 0, complete: true } });
    expect(report.actions).toHaveLength(strays);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    // Elsewhere there is no ./warden.yaml, and the run says so before any request.
    sim.resetCounters();
    const elsewhere = await run(installed, ["enforce"], { cwd: temp, env: { PATH, GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token } });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(`${join(realpathSync(temp), "warden.yaml")}: no such file`);
    expect(sim.counters.requests).toBe(0);
  });

  it("installs as a project's devDependency too, with no install script to approve, run by npm exec (npx) from the project", async () => {
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "policy-repo", private: true }));
    // --strict-allow-scripts: npm 11 refuses a package with an install script the user has not approved.
    const install = await run("npm", ["install", "--save-dev", "--strict-allow-scripts", join(temp, packed.filename)], { cwd: project, env: NPM_ENV });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/install-scripts|allowScripts/);
    expect(await run("npm", ["exec", "--", "warden", "--version"], { cwd: project, env: NPM_ENV })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
  }, 30_000);

  /**
   * The package's name, `warden`, is unscoped and unpublished: anyone may publish a `warden` to the
   * public registry. Where the devDependency is not installed (a fresh clone, a CI job before `npm ci`),
   * a bare `npx warden` fetches that one and runs it, without asking when stdin is no terminal, with
   * GITLAB_TOKEN in its environment (the package review, third pass). The command the docs give must
   * refuse instead; a loopback registry serves the impostor here.
   */
  it("the policy repository's documented npx command, with the devDependency not installed, runs no package the registry calls warden", async () => {
    const documented = /npm install --save-dev \.\/warden-[\d.]+\.tgz\s+#.*devDependency: (.+)$/m.exec(readFileSync(join(ROOT, "docs/cli.md"), "utf8"))?.[1]?.trim();
    expect(documented).toMatch(/^npx /);
    const impostor = join(temp, "impostor");
    mkdirSync(impostor);
    writeFileSync(join(impostor, "package.json"), JSON.stringify({ name: "warden", version: "9.9.9", bin: { warden: "index.js" } }));
    writeFileSync(join(impostor, "index.js"), '#!/usr/bin/env node\nconsole.log("IMPOSTOR ran with GITLAB_TOKEN=" + process.env.GITLAB_TOKEN);\n');
    const packedImpostor = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", impostor], { cwd: impostor, env: NPM_ENV });
    expect(packedImpostor.code, packedImpostor.stderr).toBe(0);
    const body = readFileSync(join(impostor, (JSON.parse(packedImpostor.stdout) as { filename: string }[])[0]!.filename));
    const requested: string[] = [];
    const registry = await serve((req, res) => {
      requested.push(`${req.method} ${req.url}`);
      if (req.url === "/warden") {
        const dist = { tarball: `${registry.url}/warden/-/warden-9.9.9.tgz`, integrity: `sha512-${createHash("sha512").update(body).digest("base64")}` };
        return json(res, 200, { name: "warden", "dist-tags": { latest: "9.9.9" }, versions: { "9.9.9": { name: "warden", version: "9.9.9", bin: { warden: "index.js" }, dist } } });
      }
      if (req.url === "/warden/-/warden-9.9.9.tgz") return void res.end(body);
      json(res, 404, {});
    });
    // A clone of the policy repository: its package.json names the devDependency, node_modules is not there.
    const clone = join(temp, "policy-clone");
    mkdirSync(clone);
    copyFileSync(join(project, "package.json"), join(clone, "package.json"));
    const { npm_config_offline: _offline, ...online } = NPM_ENV;
    const ran = await run("sh", ["-c", documented!], { cwd: clone, env: { ...online, npm_config_registry: `${registry.url}/`, GITLAB_URL: "https://gitlab.example.com", GITLAB_TOKEN: "glpat-administrators-token" } });
    expect(ran.stdout + ran.stderr).not.toContain("IMPOSTOR");
    expect(ran.code).not.toBe(0);
    expect(requested.filter((r) => r.startsWith("GET /warden/-/"))).toEqual([]);
  }, 60_000);

  it("examples/gitlab-ci.yml's jobs, run as a runner would in the policy repository: the policy-change job notes its merge request once (exit 2), the plan exits 2 (allowed) and keeps its report and plan file, the apply of that plan removes it all", async () => {
    interface Job { variables?: Record<string, string>; before_script?: string[]; script: string[]; allow_failure?: { exit_codes: number[] }; artifacts?: { paths: string[] }; rules: { if: string; when?: string }[]; environment?: { name: string } }
    const ci = parse(readFileSync(join(ROOT, "examples/gitlab-ci.yml"), "utf8")) as Record<string, Job> & { variables: Record<string, string> };
    // Outside the policy repository (a merge request could change a file there), as the example says, and
    // pinned by its SHA-256; npm installs into this prefix, as into a runner's /usr/local.
    const tarball = join(temp, packed.filename);
    const pinned = createHash("sha256").update(readFileSync(tarball)).digest("hex");
    expect(ci.variables["WARDEN_PACKAGE_SHA256"]).toMatch(/^[0-9a-f]{64}$/);
    ci.variables["WARDEN_PACKAGE"] = pathToFileURL(tarball).href;
    const runner = join(temp, "runner");
    const settings = { GITLAB_URL: sim.url, WARDEN_READ_TOKEN: sim.token, WARDEN_APPLY_TOKEN: sim.token, WARDEN_NOTE_TOKEN: sim.token };
    const runJob = async (name: string, predefined: Record<string, string> = {}) => {
      const job = { ...ci[".warden"], ...ci[name] } as Job;
      const variables = Object.fromEntries(Object.entries({ ...ci.variables, ...job.variables }).map(([k, v]) => [k, v.replace(/^\$(\w+)$/, (_, ref: string) => settings[ref as keyof typeof settings])]));
      const env = { ...NPM_ENV, ...settings, ...predefined, ...variables, npm_config_prefix: runner, PATH: `${join(runner, "bin")}:${PATH}`, TMPDIR: temp };
      const result = await run("sh", ["-ec", [...(job.before_script ?? []), ...job.script].join("\n")], { cwd: project, env });
      const artifact = job.artifacts?.paths[0]!.endsWith(".json") ? (JSON.parse(readFileSync(join(project, job.artifacts.paths[0]!), "utf8")) as EnforceReport) : undefined;
      return { job, result, artifact };
    };
    // A tarball that is not the pinned one is not installed, and the job fails before anything runs.
    ci.variables["WARDEN_PACKAGE_SHA256"] = "0".repeat(64);
    const swapped = await runJob("policy-check");
    expect(swapped.result.code).not.toBe(0);
    expect(existsSync(join(runner, "bin", "warden"))).toBe(false);
    ci.variables["WARDEN_PACKAGE_SHA256"] = pinned;
    const check = await runJob("policy-check");
    expect(check.result.code, check.result.stderr).toBe(0);
    expect(check.result.stdout).toMatch(/allow\[0\] .*: [\d,]+ shares? matched/);
    expect(check.job.allow_failure?.exit_codes).toEqual([2]);
    // What GitLab CI sets in a merge request pipeline.
    const mergeRequest = { CI_PROJECT_ID: String(policyRepo.id), CI_PROJECT_PATH: policyRepo.path, CI_PROJECT_DIR: project, CI_MERGE_REQUEST_IID: "1", CI_MERGE_REQUEST_TARGET_BRANCH_NAME: "main" };
    const change = await runJob("policy-change", mergeRequest);
    expect(change.result.code, change.result.stderr).toBe(2);
    expect(change.job.allow_failure?.exit_codes).toEqual([2]);
    expect(readFileSync(join(project, "warden-comparison.md"), "utf8")).toMatch(/^<!-- warden:policy-comparison -->\n### Merging this policy change would newly remove 0 shares\\, stop removing [1-9]/);
    expect(sim.notes.of(policyRepo.id, 1)).toHaveLength(1);
    expect((await runJob("policy-change", mergeRequest)).result.code).toBe(2);
    expect(sim.notes.of(policyRepo.id, 1)).toHaveLength(1);
    const plan = await runJob("plan");
    expect(plan.result.code, plan.result.stderr).toBe(2);
    expect(plan.job.allow_failure?.exit_codes).toEqual([2]);
    expect(plan.job.rules.map((r) => r.if)).toContain('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(plan.artifact?.summary).toMatchObject({ strays, removed: 0 });
    const apply = await runJob("apply");
    expect(apply.job.rules).toEqual([{ if: "$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH", when: "manual" }]);
    // The apply token is scoped to this protected environment: only this job gets it.
    expect(apply.job.environment).toEqual({ name: "warden-apply" });
    expect(apply.result.code, apply.result.stderr).toBe(0);
    expect(apply.artifact).toMatchObject({ job: "apply", dryRun: false, summary: { strays, removed: strays, failed: 0 } });
    expect((await runJob("plan")).result.code).toBe(0);
    expect(existsSync(join(runner, "bin", "warden"))).toBe(true);
  }, 60_000);

  it("runs once without an install: npx --yes --package TARBALL warden, offline", async () => {
    const once = await run("npx", ["--yes", "--package", join(temp, packed.filename), "warden", "--version"], { cwd: temp, env: NPM_ENV });
    expect(once).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
  });

  it(`a Node older than ${MINIMUM_NODE} is refused at once with the fix, before any library loads`, async () => {
    // Node 22 itself is not on the test machine: the version the CLI reads is made older instead.
    const preload = join(temp, "node-version.mjs");
    writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: process.env.NODE_VERSION });\n');
    const on = (version: string) => ({ PATH, NODE_OPTIONS: `--import=${preload}`, NODE_VERSION: version });
    const old = await run(installed, ["--version"], { cwd: temp, env: on("22.18.0") });
    expect(old).toEqual({ code: 1, stdout: "", stderr: `warden: Node.js 22.18.0 is too old: Warden needs ${MINIMUM_NODE} or later. Run it with Node 22 or 24.\n` });
    expect(await run(installed, ["--version"], { cwd: temp, env: on(MINIMUM_NODE) })).toMatchObject({ code: 0, stdout: `warden ${VERSION}\n` });
  });
});
