/**
 * A share POST answered 2xx by something that is not GitLab (a proxy or gateway in front of it, answering
 * for an upstream it never reached: the restore12 review). share() took every answer but 409 as "created",
 * whatever its body said, and restore reported the share done (exit 0) with GitLab holding no such share.
 * A 201 must show the new link (a project share's answer is the link, a group share's the sharing group
 * with its links); else it is an answer replaced, which may or may not have been acted on: the share is read
 * back, and sent again where it is not there (a second share would be a 409).
 */
import { describe, expect, it } from "vitest";
import { exitCode, parseRestoreText } from "../../../lib/jobs/index.ts";
import { removeByHand, run, setup, sim, snapshot } from "../../support/restore-world.ts";

const ROUTES = { project: "POST /projects/:id/share", group: "POST /groups/:id/share" } as const;

describe("restore: a 2xx to the share POST that GitLab never gave", () => {
  it.each(["project", "group"] as const)("a %s share answered 201 once by a proxy: read back, not there, sent again and created", async (kind) => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: kind === "project" ? 1 : 0, groups: kind === "group" ? 1 : 0 }));
    sim.addFaults({ kind: "status", status: 201, message: "ok", route: ROUTES[kind], times: 1 });
    const report = await run({ input, apply: true });
    const a = report.actions[0]! as { status: string; note?: string; projectId?: number; sharedGroupId?: number; groupId: number };
    expect(snapshot().has(`${kind}:${a.projectId ?? a.sharedGroupId}:${a.groupId}`)).toBe(true);
    expect(a).toMatchObject({ status: "done", note: expect.stringMatching(/answered 201 with JSON without the new share.*sent again and created/) });
    expect(exitCode(report)).toBe(0);
  });

  it.each(["project", "group"] as const)("a %s share every POST of which a proxy answers 201 itself is not reported done", async (kind) => {
    await setup();
    const input = parseRestoreText(removeByHand({ projects: kind === "project" ? 1 : 0, groups: kind === "group" ? 1 : 0 }));
    sim.addFaults({ kind: "status", status: 201, message: "ok", route: ROUTES[kind], times: 1_000_000 });
    const report = await run({ input, apply: true });
    const a = report.actions[0]! as { status: string; projectId?: number; sharedGroupId?: number; groupId: number };
    expect(snapshot().has(`${kind}:${a.projectId ?? a.sharedGroupId}:${a.groupId}`)).toBe(false);
    expect(a.status).toBe("failed");
    expect(exitCode(report)).toBe(1);
  });
});
