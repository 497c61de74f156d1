/** Recording audit events where GitLab records them (audit-events.ts lists them). */
import type { AuditEntityType, SimAuditEvent, SimGroup, SimProject } from "./dataset.ts";
import type { Caller, Store } from "./store.ts";

const ROLE_NAMES: Record<number, string> = { 5: "Minimal Access", 10: "Guest", 15: "Planner", 20: "Reporter", 30: "Developer", 40: "Maintainer", 50: "Owner" };

/** The events of the simulated instance, in id order; ids continue after the highest seeded one. */
export class AuditLog {
  readonly events: SimAuditEvent[];
  private lastId: number;
  private readonly clock: () => number;

  constructor(seeded: readonly SimAuditEvent[] = [], clock: () => number = Date.now) {
    this.clock = clock;
    this.events = [...seeded].sort((a, b) => a.id - b.id);
    this.lastId = this.events.at(-1)?.id ?? 0;
  }

  record(author: Caller, entity: { type: AuditEntityType; id: number; path: string }, eventName: string, details: Record<string, unknown>): SimAuditEvent {
    const event: SimAuditEvent = {
      id: ++this.lastId,
      author_id: author.id,
      entity_id: entity.id,
      entity_type: entity.type,
      event_name: eventName,
      details: { author_name: author.name ?? author.username, author_class: "User", ...details, event_name: eventName, entity_path: entity.path },
      created_at: new Date(this.clock()).toISOString(),
    };
    this.events.push(event);
    return event;
  }

  /** `project_group_link_created`: recorded on the invited group, its target the project. */
  projectShared(author: Caller, project: SimProject, group: SimGroup, access: number): SimAuditEvent {
    return this.record(author, { type: "Group", id: group.id, path: group.full_path }, "project_group_link_created", {
      add: "project_access",
      as: ROLE_NAMES[access] ?? String(access),
      target_id: project.id,
      target_type: "Project",
      target_details: project.path_with_namespace,
      custom_message: `Added project access as ${ROLE_NAMES[access] ?? access}`,
    });
  }

  /** `project_namespace_updated`: a transfer, recorded on the project (at its new path), from and to its namespace. */
  projectTransferred(author: Caller, project: SimProject, fromPath: string): SimAuditEvent {
    const namespace = (path: string) => path.slice(0, path.lastIndexOf("/"));
    return this.record(author, { type: "Project", id: project.id, path: project.path_with_namespace }, "project_namespace_updated", {
      change: "namespace",
      from: namespace(fromPath),
      to: namespace(project.path_with_namespace),
      target_id: project.id,
      target_type: "Project",
      target_details: project.path_with_namespace,
      custom_message: `Changed namespace from ${namespace(fromPath)} to ${namespace(project.path_with_namespace)}`,
    });
  }

  /** `group_share_with_group_link_created` / `_updated`: recorded on the sharing group, its target the invited group. */
  groupShared(author: Caller, group: SimGroup, invited: SimGroup, change?: { from: number; to: number }): SimAuditEvent {
    const target = { target_id: invited.id, target_type: "Group", target_details: invited.full_path };
    if (!change) {
      return this.record(author, { type: "Group", id: group.id, path: group.full_path }, "group_share_with_group_link_created", {
        ...target,
        custom_message: `Invited ${invited.name} to the group ${group.name}`,
      });
    }
    return this.record(author, { type: "Group", id: group.id, path: group.full_path }, "group_share_with_group_link_updated", {
      ...target,
      changes: [{ change: "group_access", from: ROLE_NAMES[change.from], to: ROLE_NAMES[change.to] }],
      custom_message: `Updated ${invited.name}'s access params for the group ${group.name}`,
    });
  }
}

/** A share's level changed as GitLab's UI changes it (REST has no route for it), with its `_updated` event. */
export function updateGroupShare(store: Store, log: AuditLog, caller: Caller | undefined, groupId: number, invitedId: number, access: number): void {
  const [group, invited] = [store.groupOf(groupId), store.groupOf(invitedId)];
  const share = group?.shared_with_groups.find((s) => s.group_id === invitedId);
  if (!group || !invited || !caller || !share) throw new Error(`updateGroupShare: no share of group ${groupId} with ${invitedId}, or no such token`);
  log.groupShared(caller, group, invited, { from: share.group_access_level, to: access });
  share.group_access_level = access;
}
