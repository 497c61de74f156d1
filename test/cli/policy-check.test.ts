/** `warden policy check` offline and --online, and enforce's rules that match nothing, end to end (issue 21). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { EVERYTHING_STRAY, groupSharesPolicy } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  const org = generateOrganisation({ projects: 400, seed: 11, groupShares: true });
  sim = await startGitLabSim({ dataset: org.dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token };
});
afterAll(() => sim.close());

/** Exemption and allow rule mistyped: `acme/legacyy/**`, and `partner/` for `partners/`. */
const typos = () => groupSharesPolicy().replace('project: "acme/legacy/**"', 'project: "acme/legacyy/**"').replace('group: "partners/contractor-x"', 'group: "partner/contractor-x"');
const EXEMPT_TYPO = 'exempt[0] (project "acme/legacyy/**") matched no project share in scope';
const ALLOW_TYPO = 'allow[1] (group "partner/contractor-x", projects "acme/mobile/**") names group partner/contractor-x, which the instance does not have';
const writes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("warden policy check, offline", () => {
  it("a clean policy exits 0 without a request", async () => {
    const run = await warden(["policy", "check", "--policy", policyFile(groupSharesPolicy())], {});
    expect(run.stdout).toMatch(/: no problems found\n$/);
    expect(run.code).toBe(0);
  });

  it("names rules outside the scope, lapsed exemptions, duplicates and shadowed rules, and exits 2", async () => {
    const policy = groupSharesPolicy()
      .replace('      - group: "auditors"', '      - group: "acme/platform"\n        projects: ["acme/mobile/app"]\n      - group: "acme/**"\n      - group: "auditors"')
      .replace("    exempt:\n", '    exempt:\n      - project: "other/**"\n      - project: "acme/old"\n        until: 2020-01-01\n')
      .replace('      - group: "acme/legacy/**"\n', '      - group: "acme/legacy/**"\n      - project: "acme/legacy/x"\n');
    const run = await warden(["policy", "check", "--policy", policyFile(policy)], {});
    expect(run.stderr).toBe("");
    const lines = run.stdout.trim().split("\n");
    for (const text of [
      'warning: exempt[0] (project "other/**"): "other/**" lies outside every scope group (acme), so never matches',
      'warning: exempt[1] (project "acme/old") lapsed after 2020-01-01: it exempts nothing',
      'warning: allow[2] (group "acme/platform", projects "acme/mobile/app") is shadowed by allow[0] (group "acme/**"): every share it allows, allow[0] allows first',
      'warning: allow[3] (group "acme/**") duplicates allow[0] (group "acme/**"): remove one',
      'warning: exempt[4] (project "acme/legacy/x") is shadowed by exempt[2] (project "acme/legacy/**"): every share it exempts, exempt[2] exempts first',
    ]) expect(lines.some((l) => l.startsWith(text)), text).toBe(true);
    expect(lines.at(-1)).toMatch(/: 5 warnings$/);
    expect(run.code).toBe(2);
  });

  it("a malformed policy exits 1 naming the field", async () => {
    const bad = policyFile(groupSharesPolicy().replace("maxRemovals: 1000", "maxRemovals: 1000\n    unmatchedRules: ignore"));
    const run = await warden(["policy", "check", "--policy", bad], {});
    expect(run.stderr).toContain("gitlab.guard.unmatchedRules");
    expect(run.code).toBe(1);
  });

  it("a pipelines rule's unprotected: a boolean, said explicitly; anything else exits 1 naming the field", async () => {
    const rule = (value: string) => `${groupSharesPolicy()}\npipelines:\n  allow:\n    - { project: "acme/**", refs: ["release/*"], unprotected: ${value} }\n`;
    expect((await warden(["policy", "check", "--policy", policyFile(rule("true"))], {})).code).toBe(0);
    const bad = await warden(["policy", "check", "--policy", policyFile(rule('"yes"'))], {});
    expect(bad.stderr).toContain("pipelines.allow[0].unprotected");
    expect(bad.code).toBe(1);
  });

  it("anything but 'check' is a usage error; the output is escaped as every command's", async () => {
    const run = await warden(["policy", "chek"], {});
    expect(run.stderr).toMatch(/expected 'warden policy check', got "chek"/);
    expect(run.code).toBe(1);
    const hostile = await warden(["policy", "check", "--policy", policyFile(groupSharesPolicy(), "w\x1b[2K\rok.yaml")], {});
    expect(hostile.stdout).toContain("w\\x1b[2K\\x0dok.yaml: no problems found");
    expect(hostile.stdout).not.toContain("\x1b");
  });
});

describe("warden policy check --online, and enforce with rules that match nothing", () => {
  it("reports each rule's shares and exits 0 when every rule matched", async () => {
    sim.resetCounters();
    const run = await warden(["policy", "check", "--online", "--policy", policyFile(groupSharesPolicy())], env);
    expect(run.stdout).toMatch(/^allow\[0\] \(group "acme\/\*\*"\): [\d,]+ shares matched$/m);
    expect(run.stdout).toMatch(/^exempt\[0\] \(project "acme\/legacy\/\*\*"\): [\d,]+ shares matched$/m);
    expect(run.stdout).not.toMatch(/: 0 shares/);
    expect(run.code).toBe(0);
    expect(writes()).toEqual([]);
  });

  it("names each typo, with 0 shares, and exits 2; JSON says the same", async () => {
    sim.resetCounters();
    const run = await warden(["policy", "check", "--online", "--policy", policyFile(typos())], env);
    expect(run.stdout).toMatch(/^exempt\[0\] \(project "acme\/legacyy\/\*\*"\): 0 shares matched$/m);
    for (const text of [EXEMPT_TYPO, ALLOW_TYPO]) expect(run.stdout).toContain(`warning: ${text}`);
    expect(run.code).toBe(2);
    const json = await warden(["policy", "check", "--online", "--json", "--policy", policyFile(typos())], env);
    const findings = JSON.parse(json.stdout) as { warnings: string[]; rules: { rule: string; shares: number }[] };
    expect(findings.rules).toContainEqual({ rule: 'exempt[0] (project "acme/legacyy/**")', shares: 0 });
    expect(findings.warnings.some((w) => w.startsWith(ALLOW_TYPO))).toBe(true);
    expect(json.code).toBe(2);
    expect(writes()).toEqual([]);
  });

  it("names an override whose group the instance does not have, and exits 2", async () => {
    const misnamed = groupSharesPolicy().replace("  scope: { groups: [acme] }\n", "  scope: { groups: [acme], overrides: [{ group: acme/mobiel, onStray: report }] }\n");
    expect(misnamed).not.toBe(groupSharesPolicy());
    const run = await warden(["policy", "check", "--online", "--policy", policyFile(misnamed)], env);
    expect(run.stdout).toContain('warning: gitlab.scope.overrides[0] (group "acme/mobiel") names a group the instance does not have (or the token cannot see): its onStray and grace apply to nothing');
    expect(run.code).toBe(2);
  });

  it("enforce: the dry run warns naming each (text and JSON), the apply trips the guard and removes nothing, unmatchedRules: warn applies", async () => {
    const policy = policyFile(typos());
    const dry = await warden(["enforce", "--policy", policy], env);
    for (const text of [EXEMPT_TYPO, ALLOW_TYPO]) expect(dry.stdout).toContain(`warning: ${text}`);
    expect(dry.code).toBe(2);
    sim.resetCounters();
    const apply = await warden(["enforce", "--apply", "--json", "--policy", policy], env);
    const report = reportJson(apply.stdout) as { summary: { guard: string; removed: number }; warnings: string[] };
    expect(report.summary).toMatchObject({ guard: "tripped", removed: 0 });
    for (const text of [EXEMPT_TYPO, ALLOW_TYPO]) expect(report.warnings.some((w) => w.startsWith(text)), text).toBe(true);
    expect(apply.code).toBe(3);
    expect(writes()).toEqual([]);
    const accepted = await warden(["enforce", "--apply", "--json", "--policy", policyFile(typos().replace("maxRemovals: 1000", "maxRemovals: 1000\n    unmatchedRules: warn"))], env);
    expect(reportJson(accepted.stdout).summary.removed).toBeGreaterThan(0);
    expect(accepted.code).toBe(0);
  });
});

describe("notices (issue 30): the notices project checked online; onStray report end to end", () => {
  const notify = (project: string) =>
    groupSharesPolicy().replace("    exempt:\n", `    onStray: notify\n    grace: 7d\n    notices: { project: ${JSON.stringify(project)} }\n    exempt:\n`);

  it("--online warns when the notices project is missing, and not when it exists", async () => {
    const missing = await warden(["policy", "check", "--online", "--policy", policyFile(notify("security/no-such-notices"))], env);
    expect(missing.stdout).toContain("warning: gitlab.shares.notices.project: project security/no-such-notices was not found, or the token cannot read it");
    expect(missing.code).toBe(2);
    const existing = sim.dataset.projects.find((p) => !p.archived && p.visibility === undefined)!;
    existing.visibility = "private";
    const found = await warden(["policy", "check", "--online", "--policy", policyFile(notify(existing.path_with_namespace))], env);
    expect(found.stdout).not.toContain("gitlab.shares.notices.project");
    // Whatever else the (shared, by now changed) world gives, the notices add nothing.
    const plain = await warden(["policy", "check", "--online", "--policy", policyFile(groupSharesPolicy())], env);
    expect(found.stdout.split("\n").filter((l) => l.startsWith("warning:"))).toEqual(plain.stdout.split("\n").filter((l) => l.startsWith("warning:")));
  });

  it("--online warns when the notices project is internal or public: its notices' labels name the shares to whoever reads it", async () => {
    // In a public group, so that either visibility is one GitLab allows it.
    const publicGroups = new Set(sim.dataset.groups.filter((g) => g.visibility === "public").map((g) => g.id));
    const open = sim.dataset.projects.find((p) => !p.archived && p.visibility === undefined && p.previous_paths.length === 0 && publicGroups.has(p.namespace_id))!;
    for (const visibility of ["internal", "public"] as const) {
      open.visibility = visibility;
      const result = await warden(["policy", "check", "--online", "--policy", policyFile(notify(open.path_with_namespace))], env);
      expect(result.stdout).toContain(`warning: gitlab.shares.notices.project: project ${open.path_with_namespace} is ${visibility}: its notices are confidential, but their labels`);
      expect(result.code).toBe(2);
    }
  });

  it("--online warns when the notices project is named by the old path of a project that moved: GitLab refuses writes through it", async () => {
    const moved = sim.dataset.projects.find((p) => p.previous_paths.length > 0)!;
    const result = await warden(["policy", "check", "--online", "--policy", policyFile(notify(moved.previous_paths[0]!))], env);
    expect(result.stdout).toContain(`warning: gitlab.shares.notices.project: project ${moved.previous_paths[0]} has moved to ${moved.path_with_namespace}: GitLab opens no issue through its old path; name it by id (${moved.id})`);
  });

  it("an applying enforce under onStray notify opens one notice per stray share of its target; the next run finds them pending", async () => {
    const target = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.archived && p.shared_with_groups.length > 0)!;
    const notices = sim.dataset.projects.find((p) => !p.archived && !p.path_with_namespace.startsWith("acme/"))!;
    const policy = policyFile(EVERYTHING_STRAY.replace("  shares:\n", `  shares:\n    onStray: notify\n    grace: 7d\n    notices: { project: ${JSON.stringify(notices.path_with_namespace)} }\n`));
    const args = ["enforce", "--apply", "--target", target.path_with_namespace, "--policy", policy];
    const first = await warden([...args, "--format", "json"], env);
    const report = reportJson(first.stdout) as { actions: { status: string }[] };
    expect(report.actions.map((a) => a.status)).toEqual(target.shared_with_groups.map(() => "noticed"));
    expect(first.code).toBe(0);
    const second = await warden(args, env);
    // Due on the first UTC day that begins 7 days or more from now: in 8 days (7 only if run at midnight sharp).
    expect(second.stdout).toMatch(new RegExp(`Notices: 0 opened, ${target.shared_with_groups.length} pending \\(next due in [78] days\\), 0 due and removed\\.`));
    expect(second.code).toBe(0);
  });

  it("an applying enforce under onStray report removes nothing and reports the strays", async () => {
    // Every share in scope stray (the earlier tests removed those the usual policy does not allow).
    const policy = policyFile(EVERYTHING_STRAY.replace("  shares:\n", "  shares:\n    onStray: report\n"));
    sim.resetCounters();
    const apply = await warden(["enforce", "--apply", "--format", "json", "--policy", policy], env);
    const report = JSON.parse(apply.stdout) as { actions: { status: string }[]; summary: { notices: { reported: number } } };
    expect(report.actions.length).toBeGreaterThan(0);
    expect(new Set(report.actions.map((a) => a.status))).toEqual(new Set(["reported"]));
    expect(report.summary.notices.reported).toBe(report.actions.length);
    expect(Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "))).toEqual([]);
    expect(apply.code).toBe(0);
  });
});
