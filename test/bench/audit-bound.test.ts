/**
 * The audit-event pages a run must read to attribute its strays (bin/bench/audit-bound.ts), in the
 * windows GitLab allows: until each group's strays are found, or all of its days when one is not recorded.
 */
import { describe, expect, it } from "vitest";
import { auditBound } from "../../bin/bench/audit-bound.ts";
import type { ShareIntent, SimAuditEvent } from "../../sim/gitlab/index.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const DAY = 86_400_000;
let nextId = 1;
/** A project share made `daysAgo` on the invited group `group`, by `author`. */
const made = (group: number, project: number, daysAgo: number, author = 2): SimAuditEvent => ({
  id: nextId++, author_id: author, entity_id: group, entity_type: "Group", event_name: "project_group_link_created",
  details: { target_id: project }, created_at: new Date(NOW.getTime() - daysAgo * DAY).toISOString(),
});
const stray = (group: number, project: number): ShareIntent => ({ kind: "project", projectId: project, groupId: group, intent: "stray" });

describe("the audit-event pages attribution must read", () => {
  it("stops at the page that finds a group's last stray; a stray never recorded reads all three 30-day windows", () => {
    const events = [made(7, 100, 40, 3), made(7, 101, 5), made(8, 200, 10)];
    // Group 7: its strays in the second window (2 pages); group 8: one recorded (1 page), one not (3 pages).
    const strays = [stray(7, 100), stray(7, 101), stray(8, 200), stray(8, 201)];
    // Group 8's third page names nobody; author 3, named on group 7's second page, is looked up in the third round.
    expect(auditBound(events, strays, NOW, () => 0)).toEqual({ auditPages: 2 + 3, auditRounds: 3, authors: 2 });
    // A group none of whose strays can be seen at the opening begins a round later.
    expect(auditBound(events, strays, NOW, (s) => (s.groupId === 8 ? 1 : 0))).toMatchObject({ auditRounds: 4 });
    expect(auditBound(events, strays, NOW, (s) => (s.groupId === 7 && s.kind === "project" && s.projectId === 100 ? 1 : 0))).toMatchObject({ auditRounds: 3 });
  });

  it("a busy window is read 100 events a page, newest first, to the one sought", () => {
    const events = Array.from({ length: 250 }, (_, i) => made(9, 1000 + i, 20 - i / 100));
    // The oldest of 250 events in one window: the third page, then its author.
    expect(auditBound(events, [stray(9, 1000)], NOW, () => 0)).toMatchObject({ auditPages: 3, auditRounds: 4 });
  });
});
