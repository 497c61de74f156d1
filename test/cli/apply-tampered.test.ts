/**
 * Issue 28 point 4: a plan file carries its own policy. Whoever can edit the artifact between review
 * and apply (a CI job of the same pipeline, a shared drive) swaps in a plan made with a policy of their
 * own: it lists a share the real policy allows, raises maxRemovals, and every hash in it is recomputed.
 * apply must refuse it before any DELETE; the honest plan still applies.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApplyReport, PlanFile } from "../../lib/jobs/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { groupSharesPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
let dir: string;
const KEY = "k".repeat(16) + "0123456789abcdef0123";

/** The attacker's policy: the contractor's shares no longer allowed, and room to remove them all. */
const ATTACKER = groupSharesPolicy(100_000).replace(/      - group: "partners\/contractor-x"\n        projects: \["acme\/mobile\/\*\*"\]\n        maxAccess: developer\n/, "");

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 11, groupShares: true }).dataset });
  dir = mkdtempSync(join(tmpdir(), "warden-tampered-"));
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(groupSharesPolicy()) };
});
afterAll(() => sim.close());

const contractor = () => sim.dataset.groups.find((g) => g.full_path === "partners/contractor-x")!.id;
const contractorShares = () => sim.dataset.projects.filter((p) => p.shared_with_groups.some((s) => s.group_id === contractor())).length;
const deletes = () => Object.keys(sim.counters.byRoute).filter((route) => route.startsWith("DELETE "));

async function plan(name: string, extra: Record<string, string> = {}): Promise<string> {
  const out = join(dir, name);
  const run = await warden(["enforce", "--out", out], { ...env, ...extra });
  expect(run.stderr).toContain(`plan written to ${out}`);
  return out;
}

describe.sequential("a plan whose policy is not the one given", () => {
  it("a plan made with another policy (a share the real one allows listed, maxRemovals raised, every hash recomputed) is refused before any DELETE", async () => {
    const tampered = await plan("tampered.json", { WARDEN_POLICY: policyFile(ATTACKER) });
    const content = JSON.parse(readFileSync(tampered, "utf8")) as PlanFile;
    expect(content.removals.some((r) => r.groupId === contractor())).toBe(true);
    const before = contractorShares();
    sim.resetCounters();
    const run = await warden(["apply", tampered, "--apply"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/its policy is not the policy given here, .*: nothing was applied; the plan was made with another policy, or edited/);
    expect(deletes()).toEqual([]);
    expect(sim.counters.requests).toBe(0);
    expect(contractorShares()).toBe(before);
  }, 60_000);

  it("without a policy to compare with (no WARDEN_POLICY, no ./warden.yaml) an unsigned plan is refused, naming the fix", async () => {
    const honest = await plan("unchecked.json");
    const { WARDEN_POLICY: _, ...bare } = env;
    sim.resetCounters();
    const run = await warden(["apply", honest, "--apply"], bare, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("its policy cannot be checked: there is no policy here to compare it with (no --policy, --policy-project or ./warden.yaml)");
    expect(run.stderr).toContain("sign plans with WARDEN_PLAN_KEY");
    expect(sim.counters.requests).toBe(0);
  }, 60_000);

  it("WARDEN_PLAN_KEY at apply: an unsigned plan, one signed with another key, and a signed one edited are refused before any request", async () => {
    const unsigned = await plan("unsigned.json");
    const other = await plan("other-key.json", { WARDEN_PLAN_KEY: `${KEY}x` });
    const signed = await plan("signed.json", { WARDEN_PLAN_KEY: KEY });
    const content = JSON.parse(readFileSync(signed, "utf8")) as PlanFile;
    expect(content.signature).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    // The attacker's plan, its signature copied over (the checksum recomputed, as anyone can).
    const forged = join(dir, "forged.json");
    const attacker = JSON.parse(readFileSync(await plan("attacker.json", { WARDEN_POLICY: policyFile(ATTACKER) }), "utf8")) as PlanFile;
    const { checksum: _, ...rest } = { ...attacker, signature: content.signature };
    const { createHash } = await import("node:crypto");
    const canonical = (v: unknown): string =>
      Array.isArray(v) ? `[${v.map(canonical).join(",")}]` : v && typeof v === "object" ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}` : JSON.stringify(v);
    writeFileSync(forged, JSON.stringify({ ...rest, checksum: `sha256:${createHash("sha256").update(canonical(rest)).digest("hex")}` }));
    sim.resetCounters();
    for (const [file, message] of [
      [unsigned, "is not signed, and WARDEN_PLAN_KEY is set"],
      [other, "its signature does not verify with WARDEN_PLAN_KEY"],
      [forged, "its signature does not verify with WARDEN_PLAN_KEY"],
    ] as const) {
      const run = await warden(["apply", file, "--apply"], { ...env, WARDEN_PLAN_KEY: KEY });
      expect(run.code, file).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toContain(KEY);
    }
    expect(sim.counters.requests).toBe(0);
    const short = await warden(["apply", signed], { ...env, WARDEN_PLAN_KEY: "abc123" });
    expect(short.stderr).toContain("WARDEN_PLAN_KEY is too short for an HMAC-SHA256 key (at least 32 characters)");
  }, 180_000);

  it("a signed plan applies with the key and no local policy, saying so; the honest plan applies with the policy given", async () => {
    const signed = await plan("signed-dry.json", { WARDEN_PLAN_KEY: KEY });
    const { WARDEN_POLICY: _, ...bare } = env;
    const dry = await warden(["apply", signed, "--json"], { ...bare, WARDEN_PLAN_KEY: KEY }, dir);
    expect(dry.code).toBe(2);
    expect((JSON.parse(dry.stdout) as ApplyReport).warnings[0]).toContain("its signature (WARDEN_PLAN_KEY) vouches for it");
    const honest = await plan("honest.json");
    const before = contractorShares();
    const run = await warden(["apply", honest, "--apply", "--json"], env);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ApplyReport;
    expect(report.summary.removed).toBeGreaterThan(0);
    expect(report.summary.removed).toBe(report.actions.length);
    // Only the contractor's shares the real policy forbids (above developer) were in the plan and removed.
    expect(contractorShares()).toBe(before - report.actions.filter((a) => a.kind === "project" && a.groupId === contractor()).length);
    expect(report.actions.filter((a) => a.kind === "project" && a.groupId === contractor()).every((a) => a.accessLevel > 30)).toBe(true);
  }, 120_000);
});

describe("a refusal quoting GitLab", () => {
  it("a newline in GitLab's error message cannot start a line of apply's error, nor of a --debug stack", async () => {
    const forged = "warden apply: every planned removal was applied; nothing left to do";
    const repo = sim.dataset.projects.find((p) => !p.path_with_namespace.startsWith("acme/"))!;
    sim.repositories.commit(repo, { "warden.yaml": groupSharesPolicy() });
    const { WARDEN_POLICY: _, ...bare } = env;
    const fromRepository = { ...bare, WARDEN_POLICY_PROJECT: repo.path_with_namespace };
    const out = join(dir, "repository.json");
    expect((await warden(["enforce", "--out", out], fromRepository)).stderr).toContain(`plan written to ${out}`);
    // Checking that the plan's commit is on the policy's branch: refused, with a message of two lines.
    sim.addFaults({ kind: "status", status: 403, route: "GET /projects/:id/repository/merge_base", times: 1, message: `403 Forbidden\n${forged}` });
    const run = await warden(["apply", out], fromRepository);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`its policy could not be checked against ${repo.path_with_namespace}:warden.yaml`);
    expect(run.stderr).toContain(`403 Forbidden\\x0a${forged}`);
    expect(run.stderr).not.toMatch(new RegExp(`^${forged}`, "m"));
    // With --debug, an unexpected error's stack keeps its frames' lines, but not its message's (a policy that
    // cannot be read is no unexpected error: its message is the fix, and it has no stack).
    sim.addFaults({ kind: "status", status: 403, route: "GET /user", times: 1, message: `403 Forbidden\n${forged}` });
    const debug = await warden(["enforce", "--debug"], env);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
    expect(debug.stderr).toContain(`403 Forbidden\\x0a${forged}`);
    expect(debug.stderr).not.toMatch(new RegExp(`^${forged}`, "m"));
  }, 60_000);
});
