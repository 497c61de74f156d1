/**
 * Whether a share whose notice a person closed was made again since (plan.ts): a new episode, owed a
 * notice and a whole grace. Only a creation says so: GitLab creates a share only where there is none,
 * so one created after its notice was opened follows the share's removal. Attribution's event
 * (`addedBy`) may instead be a raise of a group share that stayed (`_updated`: its level lowered and
 * raised again), which keeps every minute of access: taken for a new episode, it would let the adder
 * restart the grace on each due date. The event's name is read here, not kept by attribution.
 */
import { listAuditEvents, type AuditSource, type GitLabClient } from "../../gitlab/index.ts";
import { auditEventName } from "../events/index.ts";
import type { ShareRemoval } from "../shares/plan.ts";

const CREATIONS = new Set(["project_group_link_created", "group_share_with_group_link_created"]);

/** The events read around addedBy.at: a busier second than this leaves the share's date as it was. */
const MOST_EVENTS = 100;

/**
 * Whether the event that attributed `action` (its addedBy, at hand) created the share: one page of
 * the events of the group that records it (a group share on the sharing group, a project share on the
 * invited one: docs/api-contract.md), within a second of it, the instance's narrowed to that group for
 * an administrator (as attribution reads them). An event not found there is no creation.
 */
export async function createdShare(gitlab: GitLabClient, admin: boolean, action: ShareRemoval, signal?: AbortSignal): Promise<boolean> {
  const { at, eventId } = action.addedBy!;
  const groupId = action.kind === "group" ? action.sharedGroupId : action.groupId;
  const source: AuditSource = admin ? { kind: "instance", entityType: "Group", entityId: groupId } : { kind: "group", id: groupId };
  // A second each side: GitLab may read the bounds to the second.
  const window = { createdAfter: new Date(Date.parse(at) - 1_000), createdBefore: new Date(Date.parse(at) + 1_000) };
  for await (const event of listAuditEvents(gitlab, source, window, { maxItems: MOST_EVENTS, ...(signal && { signal }) })) {
    if (event.id === eventId) return CREATIONS.has(auditEventName(event) ?? "");
  }
  return false;
}
