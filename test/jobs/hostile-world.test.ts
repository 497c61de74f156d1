/**
 * The whole cycle against a GitLab that misbehaves on every verb, on several seeds: enforce --apply
 * removes exactly the strays of both kinds and touches nothing else, through 5xx before and after a
 * change is committed, dropped connections and 429s with and without headers; then restore --apply
 * --include-stray (the policy that removed them does not allow them back), once from the report and once
 * from the audit lines, brings every removed share back as it was, through the same faults on its
 * POSTs: one lost before reaching GitLab is read, found absent and sent again.
 */
import { describe, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce, exitCode, parseRestoreText, restore, type EnforceReport } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type Fault, type GitLabSim } from "../../sim/gitlab/index.ts";
import { groupSharesPolicy } from "../support/policies.ts";
import { validated } from "../support/report.ts";
import { actionKey, intentKey } from "../support/share-keys.ts";

const policy = parsePolicy(groupSharesPolicy(), "test.yaml");
const TODAY = new Date().toISOString().slice(0, 10);

/** Every failure a flaky GitLab or proxy produces, on `route`: before the change, after it, and 429s. */
function misbehaving(route: string, opts: { beforeCommit: boolean }): Fault[] {
  // The queue hands a route's faults to its first requests one after another: one of each kind keeps
  // the worst request within its 7 attempts. A 429 with Retry-After (whole seconds) only where a
  // change is made, to keep the test short.
  const write = !route.startsWith("GET ");
  return [
    ...(opts.beforeCommit ? [{ route, kind: "status", status: 500, times: 1 } as const, { route, kind: "drop", times: 1 } as const] : []),
    { route, kind: "apply-then-status", status: 502, times: 1 },
    { route, kind: "apply-then-drop", times: 1 },
    { route, kind: "429", headers: "none", times: 1 },
    ...(write ? [{ route, kind: "429", headers: "retry-after", seconds: 1, times: 1 } as const] : []),
  ];
}

// The routes each phase sends, so that no fault is left over for the next phase.
const ENFORCE_READS = ["GET /user", "GET /namespaces/:id", "GET /groups/:id/projects", "GET /groups/:id/descendant_groups", "GET /groups/:id"];
const REMOVALS = ["DELETE /projects/:id/share/:group_id", "DELETE /groups/:id/share/:group_id"];
const RESTORE_READS = ["GET /projects/:id", "GET /groups/:id"];
// A POST is repeated only after a read found it did not arrive (lib/jobs/restore/create.ts).
const CREATIONS = ["POST /projects/:id/share", "POST /groups/:id/share"];

const client = (sim: GitLabSim) =>
  new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, rateLimitedBaseMs: 50 } });

/** Every share in the simulator with what restore must bring back: level, expiry, custom role. */
function shares(sim: GitLabSim): Map<string, string> {
  const out = new Map<string, string>();
  const add = (key: string, s: { group_access_level: number; expires_at: string | null; member_role_id?: number | null }) =>
    out.set(key, JSON.stringify([s.group_access_level, s.expires_at, s.member_role_id ?? null]));
  for (const p of sim.dataset.projects) for (const s of p.shared_with_groups) add(`p${p.id}:${s.group_id}`, s);
  for (const g of sim.dataset.groups) for (const s of g.shared_with_groups) add(`g${g.id}:${s.group_id}`, s);
  return out;
}

async function applyEnforce(sim: GitLabSim): Promise<{ report: EnforceReport; auditLines: string }> {
  sim.addFaults(...[...ENFORCE_READS, ...REMOVALS].flatMap((route) => misbehaving(route, { beforeCommit: true })));
  const lines: string[] = [];
  const report = await validated(enforce({
    gitlab: client(sim),
    policy,
    apply: true,
    audit: { info: (message, fields) => lines.push(JSON.stringify({ level: "INFO", message, ...fields, timestamp: new Date().toISOString() })) },
  }));
  return { report, auditLines: lines.join("\n") };
}

async function applyRestore(sim: GitLabSim, text: string) {
  sim.addFaults(...[...RESTORE_READS, ...CREATIONS].flatMap((route) => misbehaving(route, { beforeCommit: true })));
  return restore({ gitlab: client(sim), policy, apply: true, includeStray: true, input: parseRestoreText(text) });
}

// Each seed has a simulator of its own, so they run side by side (most of the time is Retry-After waits).
describe.concurrent.each([11, 12, 13])("a GitLab that misbehaves on every verb (seed %i)", (seed) => {
  it("enforce removes exactly the strays of both kinds; restore from the report, then from the audit lines, brings them back", async ({ expect, onTestFinished }) => {
    const { dataset, intents } = generateOrganisation({ projects: 300, seed, groupShares: true });
    const sim = await startGitLabSim({ dataset });
    onTestFinished(() => sim.close());
    const before = shares(sim);
    const strays = intents.filter((i) => i.intent === "stray").map(intentKey).sort();
    expect(strays.some((k) => k.startsWith("g"))).toBe(true);
    // Restore skips a share whose expiry has passed (GitLab deletes it that night): those stay gone.
    const expired = new Set(strays.filter((k) => (JSON.parse(before.get(k)!) as [number, string | null])[1]?.localeCompare(TODAY) === -1));
    const withoutStrays = new Map([...before].filter(([k]) => !strays.includes(k)));
    const restored = new Map([...before].filter(([k]) => !expired.has(k)));

    // Round one restores from the report, round two (after enforcing again) from the audit lines.
    for (const [input, planned] of [["report", strays], ["audit lines", strays.filter((k) => !expired.has(k))]] as const) {
      const { report, auditLines } = await applyEnforce(sim);
      expect(report.actions.map(actionKey).sort(), input).toEqual(planned);
      // A removal whose first answer was lost was made by this run: done, never already-gone.
      expect(report.actions.map((a) => a.status).filter((s) => s !== "done"), input).toEqual([]);
      expect(report.summary.complete).toBe(true);
      expect(exitCode(report)).toBe(0);
      expect(shares(sim)).toEqual(withoutStrays);

      const result = await applyRestore(sim, input === "report" ? JSON.stringify(report) : auditLines);
      expect(result.actions.filter((a) => a.status === "failed"), input).toEqual([]);
      const skipped = planned.filter((k) => expired.has(k)).length;
      expect(result.summary, input).toMatchObject({ restored: planned.length - skipped, skipped, complete: true });
      expect(shares(sim), input).toEqual(restored);
    }
    // Every fault was served: none is left queued for a route the phases did not send.
    expect(sim.counters.status).toMatchObject({ "429": expect.any(Number), "500": expect.any(Number), "502": expect.any(Number) });
    expect(sim.pendingFaults()).toBe(0);
  });
});
