/** The simulator's audit events: where each share change is recorded, who may read them, paging and time filters. */
import { afterEach, describe, expect, it } from "vitest";
import { startGitLabSim, type GitLabDataset, type GitLabSim, type GitLabSimOptions, type SimAuditEvent } from "../../sim/gitlab/index.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const group = (id: number, path: string, owners: string[] = []) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "internal" as const, shared_with_groups: [], owners });

function world(auditEvents?: SimAuditEvent[]): GitLabDataset {
  return {
    groups: [group(10, "acme", ["jane"]), group(20, "partners", ["olga"])],
    users: [{ id: 5, username: "jane", name: "Jane Doe", namespace_id: 105 }, { id: 6, username: "olga", name: "Olga K", namespace_id: 106 }],
    projects: [{ id: 100, name: "app", path: "app", path_with_namespace: "acme/app", namespace_id: 10, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] }],
    ...(auditEvents ? { auditEvents } : {}),
  };
}

const TOKENS = { admin: { admin: true }, jane: { admin: false, username: "jane" }, olga: { admin: false, username: "olga" } };

async function start(opts: GitLabSimOptions = {}, events?: SimAuditEvent[]) {
  sim = await startGitLabSim({ dataset: world(events), tokens: TOKENS, ...opts });
}

async function call(token: string, path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${sim.url}/api/v4${path}`, {
    method: init.method ?? "GET",
    headers: { "private-token": token, ...(init.body ? { "content-type": "application/json" } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, link: res.headers.get("link"), body: (await res.json()) as any };
}

describe("gitlab sim: audit events", () => {
  it("records a project share on the invited group and a group share on the sharing group, with the token's user as author", async () => {
    await start();
    expect((await call("jane", "/projects/100/share", { method: "POST", body: { group_id: 20, group_access: 30 } })).status).toBe(201);
    expect((await call("jane", "/groups/10/share", { method: "POST", body: { group_id: 20, group_access: 20 } })).status).toBe(201);
    const invited = await call("olga", "/groups/20/audit_events");
    expect(invited.body).toEqual([
      {
        id: 1, author_id: 5, entity_id: 20, entity_type: "Group", event_name: "project_group_link_created", created_at: expect.any(String),
        details: expect.objectContaining({ author_name: "Jane Doe", add: "project_access", as: "Developer", target_id: 100, target_type: "Project", target_details: "acme/app", event_name: "project_group_link_created" }),
      },
    ]);
    const sharing = await call("jane", "/groups/10/audit_events");
    expect(sharing.body.map((e: SimAuditEvent) => [e.id, e.event_name, e.details["target_id"]])).toEqual([[2, "group_share_with_group_link_created", 20]]);
    expect((await call("jane", "/users/5")).body).toMatchObject({ id: 5, username: "jane", name: "Jane Doe" });

    sim.updateGroupShare(10, 20, 40, "jane");
    const updated = await call("jane", "/groups/10/audit_events");
    expect(updated.body[0]).toMatchObject({ id: 3, event_name: "group_share_with_group_link_updated", details: { changes: [{ change: "group_access", from: "Reporter", to: "Maintainer" }] } });
  });

  it("records a transfer made by a token's user as project_namespace_updated on the project, at its new path; a move without one records nothing", async () => {
    await start();
    sim.moveProject(100, 20, "olga");
    const events = await call("admin", "/projects/100/audit_events");
    expect(events.body).toEqual([
      {
        id: 1, author_id: 6, entity_id: 100, entity_type: "Project", event_name: "project_namespace_updated", created_at: expect.any(String),
        details: expect.objectContaining({ change: "namespace", from: "acme", to: "partners", target_id: 100, target_details: "partners/app", entity_path: "partners/app" }),
      },
    ]);
    sim.moveProject(100, 10);
    expect(sim.auditEvents).toHaveLength(1);
    expect(() => sim.moveProject(100, 20, "nobody")).toThrow(/no token nobody/);
    expect(sim.dataset.projects[0]!.path_with_namespace).toBe("acme/app");
  });

  it("lets Owners, administrators and the instance endpoint read them, and no one else", async () => {
    await start();
    await call("jane", "/projects/100/share", { method: "POST", body: { group_id: 20, group_access: 30 } });
    expect((await call("jane", "/groups/20/audit_events")).status).toBe(403);
    expect((await call("admin", "/groups/20/audit_events")).body).toHaveLength(1);
    expect((await call("jane", "/audit_events?entity_type=Group&entity_id=20")).status).toBe(403);
    expect((await call("admin", "/audit_events?entity_type=Group&entity_id=20")).body).toHaveLength(1);
    expect((await call("admin", "/audit_events?entity_type=Group&entity_id=10")).body).toEqual([]);
    expect((await call("admin", "/audit_events?entity_id=10")).status).toBe(400);
  });

  it("pages by keyset newest first (order_by=id, sort=desc only), by offset too, and filters created_after/created_before inclusively", async () => {
    const events = Array.from({ length: 5 }, (_, i): SimAuditEvent => ({
      id: i + 1, author_id: 5, entity_id: 10, entity_type: "Group", details: { add: "project_access", target_id: 100 }, created_at: `2026-0${i + 1}-01T00:00:00.000Z`,
    }));
    await start({}, events);
    const first = await call("jane", "/groups/10/audit_events?pagination=keyset&order_by=id&sort=desc&per_page=2");
    expect(first.body.map((e: SimAuditEvent) => e.id)).toEqual([5, 4]);
    const next = /<([^>]+)>; rel="next"/.exec(first.link!)![1]!;
    const second = await fetch(next, { headers: { "private-token": "jane" } }).then((r) => r.json() as Promise<SimAuditEvent[]>);
    expect(second.map((e) => e.id)).toEqual([3, 2]);
    expect((await call("jane", "/groups/10/audit_events?pagination=keyset&order_by=id&sort=asc")).status).toBe(405);
    expect((await call("jane", "/groups/10/audit_events?page=2&per_page=2")).body.map((e: SimAuditEvent) => e.id)).toEqual([3, 2]);
    const window = await call("jane", "/groups/10/audit_events?created_after=2026-02-01T00:00:00Z&created_before=2026-04-01T00:00:00Z");
    expect(window.body.map((e: SimAuditEvent) => e.id)).toEqual([4, 3, 2]);
    expect((await call("jane", "/groups/10/audit_events?created_after=yesterday")).status).toBe(400);
  });

  it("answers a Free instance's audit event routes 403, or 404 as a CE one does", async () => {
    await start({ tier: "free" });
    expect((await call("jane", "/groups/10/audit_events")).status).toBe(403);
    expect((await call("admin", "/audit_events")).status).toBe(403);
    await sim.close();
    await start({ tier: "free", freeAuditStatus: 404 });
    expect((await call("jane", "/groups/10/audit_events")).status).toBe(404);
  });
});
