/** A sweep under onStray notify that opens a notice for a share made since the last sweep: the watch or the stream missed it (enforce/missed.ts). */
import { describe, expect, it } from "vitest";
import { missedByEvents } from "../../../lib/jobs/enforce/missed.ts";
import type { ShareRemoval, ShareStatus } from "../../../lib/jobs/index.ts";

const stray = (groupId: number, status: ShareStatus): ShareRemoval => ({
  type: "remove-share", kind: "project", projectId: 1, project: "acme/app", groupId, group: `g${groupId}`, accessLevel: 30, expiresAt: null, reason: "r", status,
  addedBy: { name: "Jane", username: "jane", at: "2026-11-29T10:00:00.000Z", eventId: groupId },
});

describe("missed by events, under onStray notify", () => {
  it("a notice the sweep opens (or plans) counts as missed; a pending or reported stray does not", () => {
    const actions = [stray(1, "noticed"), stray(2, "notify"), stray(3, "pending"), stray(4, "reported")];
    const missed = missedByEvents(actions, { from: "2026-11-29T00:00:00.000Z", to: "2026-11-30T00:00:00.000Z" });
    expect(missed.shares.map((s) => s.group)).toEqual(["g1", "g2"]);
  });
});
