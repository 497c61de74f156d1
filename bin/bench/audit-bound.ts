/**
 * The audit-event requests a run that attributes its strays must send, in a world whose shares GitLab
 * recorded (sim/gitlab/generate-audit-events.ts): for each group whose events record a stray (the invited
 * group of a project share, the shared group of a group share), its events newest first in the 30-day
 * windows the API allows, 100 a page, until every stray of the group is found or its days are read
 * (a share made before them, or never recorded, is only known absent once they are); and one look-up of
 * each author named (the events carry no username). Neither depends on the client: GitLab lists a group's
 * events in no other order, and no page can be skipped. `auditRounds` is the least time attribution takes,
 * in round trips from the examination's opening: of each group, the rounds before any of its strays can be
 * seen (`seenAfter`), then its pages one after another (each window's pages follow their links); of each
 * author, one more after the first page that names them; the most of any.
 */
import { auditWindows } from "../../lib/gitlab/index.ts";
import { DEFAULT_ATTRIBUTION_DAYS } from "../../lib/policy/policy.ts";
import type { ShareIntent, SimAuditEvent } from "../../sim/gitlab/index.ts";

const PER_PAGE = 100;

export function auditBound(
  events: readonly SimAuditEvent[],
  strays: readonly ShareIntent[],
  now: Date,
  seenAfter: (stray: ShareIntent) => number,
  days = DEFAULT_ATTRIBUTION_DAYS,
): { auditPages: number; auditRounds: number; authors: number } {
  // Each group's wanted shares, as its events name them: a project share by the project, a group share by the invited group.
  const wanted = new Map<number, Set<string>>();
  const seen = new Map<number, number>();
  for (const s of strays) {
    const [group, target] = s.kind === "project" ? [s.groupId, `project:${s.projectId}`] : [s.sharedGroupId, `group:${s.groupId}`];
    wanted.set(group, (wanted.get(group) ?? new Set()).add(target));
    seen.set(group, Math.min(seen.get(group) ?? Infinity, seenAfter(s)));
  }
  const byGroup = Map.groupBy(events.filter((e) => e.entity_type === "Group" && wanted.has(e.entity_id)), (e) => e.entity_id);
  // Each author's look-up goes out once its event is read (the group's pages go on meanwhile): the round it is answered at the soonest.
  const lookedUp = new Map<number, number>();
  let auditPages = 0;
  let auditRounds = 0;
  for (const [group, shares] of wanted) {
    const left = new Set(shares);
    const newestFirst = (byGroup.get(group) ?? []).toSorted((a, b) => b.id - a.id);
    let round = seen.get(group)!;
    for (const window of auditWindows(now, days)) {
      if (!left.size) break;
      const inWindow = newestFirst.filter((e) => Date.parse(e.created_at) >= window.createdAfter!.getTime() && Date.parse(e.created_at) <= window.createdBefore!.getTime());
      // An empty window is one page too: its answer is what shows it empty.
      for (let page = 0; left.size && (page === 0 || page * PER_PAGE < inWindow.length); page++) {
        auditPages++;
        round++;
        for (const e of inWindow.slice(page * PER_PAGE, (page + 1) * PER_PAGE)) {
          const share = shareOf(e);
          if (share && left.delete(share) && e.author_id > 0) lookedUp.set(e.author_id, Math.min(lookedUp.get(e.author_id) ?? Infinity, round + 1));
          if (!left.size) break;
        }
      }
    }
    auditRounds = Math.max(auditRounds, round);
  }
  return { auditPages, auditRounds: Math.max(auditRounds, ...lookedUp.values()), authors: lookedUp.size };
}

/** The share an event created, as `wanted` names it (the generated history records creations only). */
function shareOf(e: SimAuditEvent): string | undefined {
  const target = e.details["target_id"];
  if (e.event_name === "project_group_link_created") return `project:${target}`;
  if (e.event_name === "group_share_with_group_link_created") return `group:${target}`;
  return undefined;
}
