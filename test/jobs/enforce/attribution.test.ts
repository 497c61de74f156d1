/**
 * Who added each stray share (lib/jobs/enforce/attribution.ts), against the simulator's audit events:
 * group shares from the sharing group's events, project shares from the invited group's (its Owner) or
 * the instance's (an administrator), older rows without event_name, a level raised later, the days
 * bound, and a GitLab without audit events.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, exitCode, renderText, type ShareRemoval } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim, type GitLabDataset, type GitLabSim, type GitLabSimOptions, type SimAuditEvent } from "../../../sim/gitlab/index.ts";
import { ACME_ONLY } from "../../support/policies.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();
const group = (id: number, path: string, owners: string[], parent_id: number | null = null) =>
  ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, full_path: path, parent_id, visibility: "internal" as const, shared_with_groups: [], owners });
const project = (id: number, path: string, namespace_id: number) =>
  ({ id, name: path, path, path_with_namespace: `acme/${path}`, namespace_id, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });

/** acme (Jane owns it) with one project; partners and outsiders, groups Olga owns, that acme's policy does not allow. */
function world(): GitLabDataset {
  return {
    groups: [group(10, "acme", ["jane"]), group(20, "partners", ["olga"]), group(30, "outsiders", ["olga"])],
    users: [
      { id: 5, username: "jane", name: "Jane Doe", namespace_id: 105 },
      { id: 6, username: "olga", name: "Olga Kern", namespace_id: 106 },
      { id: 7, username: "bob", name: "Bob Builder", namespace_id: 107 },
    ],
    projects: [project(100, "app", 10)],
  };
}

const TOKENS = { root: { admin: true }, jane: { admin: false, username: "jane" }, olga: { admin: false, username: "olga" }, bob: { admin: false, username: "bob" } };
const POLICY = (attribution = "") => `${ACME_ONLY}${attribution}`;

async function start(opts: GitLabSimOptions = {}, dataset = world()) {
  sim = await startGitLabSim({ dataset, tokens: TOKENS, recordRequests: true, ...opts });
}

async function share(token: string, path: string, groupId: number, access = 30): Promise<void> {
  const res = await fetch(`${sim.url}/api/v4${path}`, {
    method: "POST",
    headers: { "private-token": token, "content-type": "application/json" },
    body: JSON.stringify({ group_id: groupId, group_access: access }),
  });
  expect(res.status).toBe(201);
}

async function run(token: string, attribution = "") {
  sim.resetCounters();
  const gitlab = new GitLabClient({ url: sim.url, token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return enforce({ gitlab, policy: parsePolicy(POLICY(attribution), "test.yaml") });
}

const removal = (actions: readonly ShareRemoval[], kind: "project" | "group", groupId: number) => actions.find((a) => a.kind === kind && a.groupId === groupId)!;
const auditUrls = () => sim.requests.map((r) => r.url).filter((u) => u.includes("audit_events"));
const nonGet = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("enforce: who added each stray share", () => {
  it("a group share: from the sharing group's events, newest first, one request; the text report names the author; a dry run sends only GETs", async () => {
    await start();
    await share("jane", "/groups/10/share", 20);
    const event = sim.auditEvents.at(-1)!;
    const report = await run("jane");
    expect(removal(report.actions, "group", 20)).toMatchObject({ addedBy: { name: "Jane Doe", username: "jane", at: event.created_at, eventId: event.id } });
    expect(auditUrls()).toHaveLength(1);
    expect(auditUrls()[0]).toMatch(/^\/api\/v4\/groups\/10\/audit_events\?.*pagination=keyset/);
    expect(new URL(auditUrls()[0]!, sim.url).searchParams.get("order_by")).toBe("id");
    expect(new URL(auditUrls()[0]!, sim.url).searchParams.get("sort")).toBe("desc");
    expect(report.stats.auditRequests).toBe(1);
    expect(report.warnings.filter((w) => w.includes("attribution"))).toEqual([]);
    expect(renderText(report, { color: false })).toContain(`added by Jane Doe ${event.created_at.slice(0, 10)}`);
    expect(nonGet()).toEqual([]);
    expect(exitCode(report)).toBe(2);
  });

  it("a level raised later: the _updated event names who raised it; one that lowered it does not", async () => {
    await start();
    await share("jane", "/groups/10/share", 20, 20);
    sim.updateGroupShare(10, 20, 40, "bob");
    const raised = sim.auditEvents.at(-1)!;
    sim.updateGroupShare(10, 20, 30, "olga");
    const report = await run("jane");
    expect(removal(report.actions, "group", 20).addedBy).toEqual({ name: "Bob Builder", username: "bob", at: raised.created_at, eventId: raised.id });
  });

  it("a project share: recorded on the invited group, read by its Owner, by an administrator through the instance endpoint, and not by anyone else", async () => {
    await start();
    await share("jane", "/projects/100/share", 20);
    const created = sim.auditEvents.at(-1)!;
    const expected = { name: "Jane Doe", username: "jane", at: created.created_at, eventId: created.id };

    const owner = await run("olga");
    expect(removal(owner.actions, "project", 20).addedBy).toEqual(expected);
    expect(auditUrls().every((u) => u.startsWith("/api/v4/groups/20/audit_events?"))).toBe(true);

    const admin = await run("root");
    expect(removal(admin.actions, "project", 20).addedBy).toEqual(expected);
    const [url] = auditUrls();
    expect(url).toMatch(/^\/api\/v4\/audit_events\?/);
    expect(Object.fromEntries(new URL(url!, sim.url).searchParams)).toMatchObject({ entity_type: "Group", entity_id: "20" });

    const other = await run("jane");
    expect(removal(other.actions, "project", 20)).toMatchObject({ addedBy: null, attribution: "not visible" });
    expect(other.warnings.filter((w) => w.startsWith("attribution"))).toEqual([expect.stringContaining("partners (403)")]);
    expect(other.summary.complete).toBe(true);
  });

  it("an older row without event_name (add: project_access) attributes a project share", async () => {
    const dataset = world();
    dataset.projects[0]!.shared_with_groups.push({ group_id: 30, group_name: "outsiders", group_full_path: "outsiders", group_access_level: 30, expires_at: null });
    const old: SimAuditEvent = {
      id: 41, author_id: 7, entity_id: 30, entity_type: "Group", created_at: daysAgo(10),
      details: { author_name: "Bob Builder", add: "project_access", as: "Developer", target_id: 100, target_type: "Project", target_details: "acme/app" },
    };
    // Another project's row on the same group, newer: not this share's.
    const other: SimAuditEvent = { ...old, id: 42, author_id: 6, created_at: daysAgo(1), details: { ...old.details, author_name: "Olga Kern", target_id: 999 } };
    await start({}, { ...dataset, auditEvents: [old, other] });
    const report = await run("root");
    expect(removal(report.actions, "project", 30).addedBy).toEqual({ name: "Bob Builder", username: "bob", at: old.created_at, eventId: 41 });
  });

  it("reads in 30-day windows back to gitlab.attribution.days and no further, then says not recorded", async () => {
    const dataset = world();
    dataset.groups[0]!.shared_with_groups.push({ group_id: 30, group_name: "outsiders", group_full_path: "outsiders", group_access_level: 30, expires_at: null });
    const created: SimAuditEvent = {
      id: 7, author_id: 5, entity_id: 10, entity_type: "Group", event_name: "group_share_with_group_link_created", created_at: daysAgo(100),
      details: { author_name: "Jane Doe", target_id: 30, target_type: "Group", target_details: "outsiders" },
    };
    await start({}, { ...dataset, auditEvents: [created] });

    const bounded = await run("jane");
    expect(removal(bounded.actions, "group", 30)).toMatchObject({ addedBy: null, attribution: "not recorded" });
    // 90 days: three windows, each one page, none longer than 30 days.
    expect(bounded.stats.auditRequests).toBe(3);
    const spans = auditUrls().map((u) => new URL(u, sim.url).searchParams).map((q) => Date.parse(q.get("created_before")!) - Date.parse(q.get("created_after")!));
    expect(spans.every((ms) => ms <= 30 * DAY)).toBe(true);

    const further = await run("jane", "  attribution: { days: 120 }\n");
    expect(removal(further.actions, "group", 30).addedBy).toMatchObject({ name: "Jane Doe", eventId: 7 });
    expect(further.stats.auditRequests).toBe(4);

    const off = await run("jane", "  attribution: { days: off }\n");
    expect(removal(off.actions, "group", 30)).toMatchObject({ addedBy: null, attribution: "off" });
    expect(off.stats.auditRequests).toBe(0);
    expect(auditUrls()).toEqual([]);
  });

  it.each([
    ["an unlicensed EE (403) to an administrator", 403 as const, "root"],
    ["a CE (404)", 404 as const, "jane"],
  ])("a Free GitLab, %s: attribution off with one warning, one request, and the run completes", async (_, status, token) => {
    await start({ tier: "free", freeAuditStatus: status });
    await share("jane", "/groups/10/share", 20);
    await share("jane", "/groups/10/share", 30);
    await share("jane", "/projects/100/share", 20);
    await share("jane", "/projects/100/share", 30);
    const report = await run(token);
    expect(report.actions).toHaveLength(4);
    expect(report.actions.every((a) => a.addedBy === null && a.attribution === "off")).toBe(true);
    expect(report.warnings.filter((w) => w.includes("attribution"))).toEqual([expect.stringMatching(/^attribution off: .*\(Free tier\), so 4 removals show no author$/)]);
    expect(report.stats.auditRequests).toBe(1);
    expect(report.summary).toMatchObject({ complete: true, guard: "ok", strays: 4 });
    expect(nonGet()).toEqual([]);
  });

  it("apply: the audit lines carry who added the share", async () => {
    await start();
    await share("jane", "/groups/10/share", 20);
    const gitlab = new GitLabClient({ url: sim.url, token: "jane", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    const lines: Record<string, unknown>[] = [];
    const report = await enforce({ gitlab, policy: parsePolicy(POLICY(), "test.yaml"), apply: true, audit: { info: (message, fields) => lines.push({ message, ...fields }) } });
    expect(report.summary.removed).toBe(1);
    // The line as the DELETE was answered, and the group's confirmation after.
    const line = { message: "remove-group-share", outcome: "done", addedBy: expect.objectContaining({ name: "Jane Doe", username: "jane" }) };
    expect(lines).toEqual([expect.objectContaining(line), expect.objectContaining({ ...line, confirmation: true })]);
  });
});
