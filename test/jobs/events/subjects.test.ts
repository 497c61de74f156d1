/** Which subject an event names: the events as the GitLab simulator records them, older rows, and system hooks. */
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../../lib/gitlab/index.ts";
import { eventSubjectKey, subjectOfAuditEvent, subjectOfSystemHook } from "../../../lib/jobs/events/subjects.ts";
import { startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";

let sim: GitLabSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const group = (id: number, path: string, owners: string[] = []) => ({ id, name: path, path, full_path: path, parent_id: null, visibility: "internal" as const, shared_with_groups: [], owners });

async function post(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${sim!.url}/api/v4${path}`, { method: "POST", headers: { "private-token": "jane", "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

async function events(path: string): Promise<AuditEvent[]> {
  return (await fetch(`${sim!.url}/api/v4${path}`, { headers: { "private-token": "admin" } })).json() as Promise<AuditEvent[]>;
}

describe("the subject of an event", () => {
  it("is the shared project for a project share (recorded on the invited group), the sharing group for a group share", async () => {
    sim = await startGitLabSim({
      dataset: {
        groups: [group(10, "acme", ["jane"]), group(20, "partners")],
        users: [{ id: 5, username: "jane", name: "Jane Doe", namespace_id: 105 }],
        projects: [{ id: 100, name: "app", path: "app", path_with_namespace: "acme/app", namespace_id: 10, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] }],
      },
      tokens: { admin: { admin: true }, jane: { admin: false, username: "jane" } },
    });
    await post("/projects/100/share", { group_id: 20, group_access: 30 });
    await post("/groups/10/share", { group_id: 20, group_access: 20 });
    sim!.updateGroupShare(10, 20, 40, "jane");
    const [projectShare] = await events("/groups/20/audit_events");
    expect(subjectOfAuditEvent(projectShare!)).toEqual({ kind: "project", id: 100, path: "acme/app" });
    const groupShares = await events("/groups/10/audit_events");
    expect(groupShares.map(subjectOfAuditEvent)).toEqual([{ kind: "group", id: 10, path: "acme" }, { kind: "group", id: 10, path: "acme" }]);
  });

  it("reads rows without event_name by details.add, and names no subject for removals and other events", () => {
    const base = { id: 1, author_id: 5, entity_id: 20, entity_type: "Group", created_at: "2026-11-20T09:30:00Z" };
    expect(subjectOfAuditEvent({ ...base, details: { add: "project_access", target_id: 100, target_type: "Project", target_details: "acme/app" } })).toEqual({ kind: "project", id: 100, path: "acme/app" });
    expect(subjectOfAuditEvent({ ...base, event_name: "project_group_link_deleted", details: { remove: "project_access", target_id: 100 } })).toBeUndefined();
    expect(subjectOfAuditEvent({ ...base, event_name: "group_share_with_group_link_removed", details: {} })).toBeUndefined();
    expect(subjectOfAuditEvent({ ...base, event_name: "user_logged_in" })).toBeUndefined();
    // A target that is not a project id names nothing rather than a wrong subject.
    expect(subjectOfAuditEvent({ ...base, event_name: "project_group_link_created", details: { target_id: "acme/app" } })).toBeUndefined();
    const project = { ...base, entity_id: 100, entity_type: "Project", details: { entity_path: "acme/app" } };
    for (const name of ["project_group_link_updated", "project_created", "project_namespace_updated"]) {
      expect(subjectOfAuditEvent({ ...project, event_name: name })).toEqual({ kind: "project", id: 100, path: "acme/app" });
    }
  });

  it("is the project of project_create and project_transfer, the group of group_create; other hooks name none", () => {
    expect(subjectOfSystemHook({ event_name: "project_transfer", project_id: 74, path_with_namespace: "acme/moved", old_path_with_namespace: "outside/moved" } as never)).toEqual({ kind: "project", id: 74, path: "acme/moved" });
    expect(subjectOfSystemHook({ event_name: "project_create", project_id: 75, path_with_namespace: "acme/new" })).toEqual({ kind: "project", id: 75, path: "acme/new" });
    expect(subjectOfSystemHook({ event_name: "group_create", group_id: 78, full_path: "acme/team" })).toEqual({ kind: "group", id: 78, path: "acme/team" });
    expect(subjectOfSystemHook({ event_name: "user_create" })).toBeUndefined();
    expect(subjectOfSystemHook({ event_name: "project_create", project_id: "75" })).toBeUndefined();
    expect(eventSubjectKey({ kind: "group", id: 78 })).toBe("group:78");
  });
});
