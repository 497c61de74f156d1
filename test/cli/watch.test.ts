/**
 * `warden watch` as a real child process against the simulator: shares made while it polls are
 * removed within two polls, one JSON report line per batch; its cursor survives a restart (a share
 * made while it was down is handled at its first poll, none is replayed twice); a dry watch sends
 * only GETs; GitLab Free is refused naming the tier; SIGTERM mid-batch prints the report, writes the
 * audit lines of what settled, and keeps the batch's subject for another try.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { WatchReport } from "../../lib/jobs/watch/index.ts";
import { startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import { policyFile, startWarden, warden } from "../support/cli.ts";
import { reportJson } from "../support/report.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

async function start(opts: GitLabSimOptions = {}) {
  sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS, recordRequests: true, ...opts });
  const dir = mkdtempSync(join(tmpdir(), "warden-watch-"));
  return { state: join(dir, "watch.json"), auditLog: join(dir, "audit.jsonl"), env: { GITLAB_URL: sim.url, GITLAB_TOKEN: "root", WARDEN_POLICY: policyFile(watchPolicyText()) } };
}

/** Waits for `condition`, at most `ms`. */
async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out");
    await sleep(20);
  }
}

const batches = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((line) => reportJson<WatchReport>(line));
const stateIn = (state: string) => JSON.parse(readFileSync(state, "utf8")) as { sources: Record<string, { id: number }>; retries: Record<string, number> };
const cursorIn = (state: string) => stateIn(state).sources["instance"]!.id;
const nonGet = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("warden watch", () => {
  it("removes shares made while it polls within two polls, one JSON line per batch; its cursor survives a restart", async () => {
    const { state, env } = await start();
    const run = startWarden(["watch", "--apply", "--json", "--interval", "1s", "--state", state], env);
    await run.stderrMatches(/first start: from the newest audit event now/);
    expect(cursorIn(state)).toBe(sim.auditEvents.at(-1)?.id ?? 0);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const made = sim.requests.findIndex((r) => r.method === "POST");
    await until(() => allShares(sim).length === 0);
    // Within two polls: the watch's listings (the instance's events, not narrowed as attribution's are) between the share and its removal.
    const removed = sim.requests.findIndex((r) => r.method === "DELETE");
    const polls = sim.requests.slice(made, removed).filter((r) => r.url.startsWith("/api/v4/audit_events?") && !r.url.includes("entity_type"));
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls.length).toBeLessThanOrEqual(2);
    await until(() => cursorIn(state) === sim.auditEvents.find((e) => e.event_name === "project_group_link_created")!.id);
    run.kill("SIGTERM");
    const first = await run.done;
    expect(first.code).toBe(0);
    const [batch, ...more] = batches(first.stdout);
    expect(more).toEqual([]);
    expect(batch!.actions).toMatchObject([{ kind: "project", projectId: IDS.app, groupId: IDS.partners, status: "done", addedBy: { username: "jane" } }]);
    expect(batch!.events).toMatchObject([{ name: "project_group_link_created", subject: `project:${IDS.app}` }]);
    expect(first.stderr).toMatch(/watching the instance's audit events \(GET \/audit_events\) every 1s: at least 3600 requests an hour/);

    // While it is down, another share: the restart goes on from its cursor and handles it at once.
    await share(sim, "jane", `/groups/${IDS.acme}/share`, IDS.partners);
    const again = startWarden(["watch", "--apply", "--json", "--interval", "1s", "--state", state], env);
    await until(() => allShares(sim).length === 0, 25_000);
    await until(() => cursorIn(state) === sim.auditEvents.find((e) => e.event_name === "group_share_with_group_link_created")!.id);
    again.kill("SIGINT");
    const second = await again.done;
    expect(second.code).toBe(0);
    expect(second.stderr).not.toMatch(/first start/);
    expect(batches(second.stdout).flatMap((b) => b.events.map((e) => e.name))).toEqual(["group_share_with_group_link_created"]);
  }, 60_000);

  it("a dry watch reports and sends only GETs; a signal ends it with exit 2 (strays found)", async () => {
    const { state, env } = await start();
    const run = startWarden(["watch", "--interval", "1s", "--state", state], env);
    await run.stderrMatches(/first start/);
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    sim.resetCounters();
    await until(() => cursorIn(state) === sim.auditEvents.at(-1)!.id);
    run.kill("SIGTERM");
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/batch: 1 event\(s\) \(\d+\) naming 1 subject\(s\)/);
    expect(result.stdout).toMatch(/acme\/app/);
    expect(nonGet()).toEqual([]);
    expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  }, 20_000);

  it.each([403, 404] as const)("GitLab Free (audit events answer %i): exit 1 naming the tier, nothing changed, no state written", async (status) => {
    const { state, env } = await start({ tier: "free", freeAuditStatus: status });
    const result = await warden(["watch", "--apply", "--state", state], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GitLab Free does not have .*nothing was changed/);
    expect(existsSync(state)).toBe(false);
    expect(nonGet()).toEqual([]);
  });

  it("bad options and a foreign state file are refused before any request", async () => {
    const { state, env } = await start();
    expect((await warden(["watch", "--interval", "0s"], env)).stderr).toMatch(/--interval takes a time from 1s to 1h/);
    expect((await warden(["watch", "--interval", "61m"], env)).stderr).toMatch(/--interval takes a time from 1s to 1h/);
    // "1h", as that refusal says, is taken (it was refused by it): with no GITLAB_URL, the run stops at the next check.
    const { GITLAB_URL: _, ...noUrl } = env;
    const hour = await warden(["watch", "--interval", "1h"], noUrl);
    expect(hour.stderr).not.toMatch(/--interval/);
    expect(hour.stderr).toMatch(/GITLAB_URL is not set/);
    const other = policyFile(JSON.stringify({ version: 1, sources: { instance: 3 }, gitlabUrl: "https://gitlab.example.com" }), "state.json");
    const foreign = await warden(["watch", "--state", other], env);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/the cursor of "https:\/\/gitlab.example.com", not of http:\/\/127.0.0.1/);
    // Its gitlabUrl is the file's text, quoted: a newline in it forged a line of its own on stderr (a review of the CLI's inputs).
    const forged = "warden watch: resumed from the saved cursor; every share is in policy";
    const forging = await warden(["watch", "--state", policyFile(JSON.stringify({ version: 1, sources: {}, gitlabUrl: `https://gitlab.example.com\n${forged}` }), "forged.json")], env);
    expect(forging.stderr.split("\n").filter((line) => line.startsWith(forged))).toEqual([]);
    expect(sim.counters.requests).toBe(0);
    expect(existsSync(state)).toBe(false);
  });

  it("SIGTERM mid-batch: the report is printed, an audit line for each share removed, and the batch's subject kept for another try", async () => {
    const { state, auditLog, env } = await start({ faults: [{ kind: "delay", ms: 2_000, method: "DELETE", times: 1 }] });
    const run = startWarden(["watch", "--apply", "--json", "--interval", "1s", "--state", state, "--audit-log", auditLog], env);
    await run.stderrMatches(/first start/);
    const cursor = cursorIn(state);
    // The DELETE (answered 2 s later) stops the watch while the removal is under way.
    sim.beforeAnswer((req) => void (req.method === "DELETE" && run.kill("SIGTERM")));
    await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
    const result = await run.done;
    await sleep(2_500); // a DELETE cancelled in flight still lands after the simulator's delay
    expect(result.code).toBe(1);
    const [batch] = batches(result.stdout);
    expect(batch!.events).toMatchObject([{ subject: `project:${IDS.app}` }]);
    // One audit line per removal settled (removed, or cut off: "may or may not have happened"), none for one not begun.
    const settled = batch!.actions.filter((a) => a.status !== "planned");
    const lines = readFileSync(auditLog, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { projectId: number });
    expect(settled.length).toBeGreaterThan(0);
    expect(lines.map((l) => l.projectId).sort()).toEqual(settled.map((a) => (a.kind === "project" ? a.projectId : 0)).sort());
    expect(batch!.summary.complete && batch!.actions.every((a) => a.status === "done")).toBe(false);
    // The cursor moves past the events; their subject waits in the state file for the next start's first poll.
    expect(cursorIn(state)).toBe(batch!.events[0]!.id);
    expect(cursor).toBeLessThan(batch!.events[0]!.id);
    expect(stateIn(state).retries).toEqual({ [`project:${IDS.app}`]: 1 });
  }, 20_000);
});
