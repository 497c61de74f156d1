/**
 * A notice's text (lib/jobs/notices/text.ts) is written into GitLab issues from names others choose
 * (project and group paths, users' names): the attack is a name that forges the hidden marker, pings
 * everyone, or injects Markdown and HTML.
 */
import { describe, expect, it } from "vitest";
import { markedKey, noticeKey } from "../../../lib/jobs/notices/marker.ts";
import { closingNote, noticeBody, noticeTitle } from "../../../lib/jobs/notices/text.ts";
import type { ShareRemoval } from "../../../lib/jobs/index.ts";

const hostile: ShareRemoval = {
  type: "remove-share", kind: "project", projectId: 12,
  project: "acme/x -->\n<!-- warden-share: project:99:group:98 -->",
  groupId: 34, group: "@all <img src=x onerror=alert(1)> [click](https://evil.example) ~label #1 glpat-abcdefghijklmnopqrst",
  accessLevel: 30, expiresAt: null, reason: "not allowed: no rule allows @all",
  addedBy: { name: "@root **Boss** <b> (approve at https://evil.example/warden/approve)", username: "root", at: "2026-11-20T10:00:00.000Z", eventId: 1 },
  status: "notify",
};

/**
 * Every mention, issue reference, label or raw tag left as GitLab would render it; and every URL its
 * autolink filter would link in the text Markdown renders (the backslashes dropped: AutolinkFilter's pattern).
 */
const live = (text: string) => [
  ...(text.match(/(?<![\\\u200d])(@[a-z]|~[a-z]|#\d|<img|<b>|\]\(http)/gi) ?? []),
  ...(text.replace(/\\([!-/:-@[-`{-~])/g, "$1").match(/[a-z][a-z0-9+.-]+:\/\/[^\s>]+/g) ?? []),
];

describe("notice text: hostile names", () => {
  it("the body's one marker is Warden's, first, for the real share: a path cannot forge or break it", () => {
    const body = noticeBody(hostile, { dueDate: "2026-12-07", grace: "7d", from: "gitlab.shares" });
    expect(markedKey(body)).toBe(noticeKey(hostile));
    expect(noticeKey(hostile)).toBe("project:12:group:34");
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(body.match(/-->/g)).toHaveLength(1);
    expect(body).not.toContain("warden-share: project:99");
  });

  it("names cannot mention anyone, reference issues or labels, or inject HTML and links; a token-shaped name is redacted", () => {
    const body = noticeBody(hostile, { dueDate: "2026-12-07", grace: "7d", from: "gitlab.shares" });
    const title = noticeTitle(hostile);
    expect(live(body)).toEqual([]);
    expect(live(title)).toEqual([]);
    expect(body).not.toContain("glpat-abcdefghijklmnopqrst");
    expect(title).not.toContain("glpat-abcdefghijklmnopqrst");
    // One line: a newline in a path cannot start a new block (a heading, a forged marker).
    expect(title).not.toContain("\n");
    expect(body.split("\n").filter((line) => line.startsWith("<!--"))).toHaveLength(1);
  });

  it("the body says why, who and when, the removal date and how to keep the share", () => {
    const body = noticeBody({ ...hostile, project: "acme/app", group: "partners", reason: "no allow rule matches" }, { dueDate: "2026-12-07", grace: "7d", from: "gitlab.shares" });
    expect(body).toContain("2026\\-12\\-07");
    expect(body).toContain("no allow rule matches");
    expect(body).toContain("2026\\-11\\-20");
    expect(body).toContain("warden exempt");
    expect(body).toMatch(/change the policy/);
  });

  it("the title fits GitLab's 255 characters however long the paths, cut on a code point and never inside an escape", () => {
    // A path alone may be 255 characters, and escaping doubles every - and . in it.
    for (let n = 100; n < 140; n++) {
      for (const project of [`acme/${"a-".repeat(n)}`, `acme/${"x".repeat(n)}${"😀".repeat(n)}`]) {
        const title = noticeTitle({ ...hostile, project, group: `partners/${"g.".repeat(n)}` });
        expect(Array.from(title).length, project).toBeLessThanOrEqual(255);
        expect(title).toMatch(/^Stray share: project acme/);
        expect(title.endsWith("…")).toBe(true);
        // No backslash left escaping the ellipsis, and no half of an emoji before it.
        expect(title, project).not.toMatch(/(?<!\\)(\\\\)*\\…$/);
        expect(title.codePointAt(title.length - 2)! & 0xfc00).not.toBe(0xd800);
      }
    }
    expect(noticeTitle({ ...hostile, project: "acme/app", group: "partners" })).toBe("Stray share: project acme\\/app shared with partners (developer)");
  });

  it("says why its own share is stray, not what the policy allows the group elsewhere (paths its readers need not see)", () => {
    // As lib/policy/shares.ts words a group an allow rule names for other subjects only (a review of outputs' audiences).
    const reason = "no allow rule matches group partners/x on project acme/app/api (allow[1] partners/x applies only to projects acme/mergerfalcon/**, acme/board/**)";
    const body = noticeBody({ ...hostile, project: "acme/app/api", group: "partners/x", reason }, { dueDate: "2026-12-07", grace: "7d", from: "gitlab.shares" });
    expect(body).toContain("no allow rule matches group partners/x on project acme/app/api |".replace(/[/_.-]/g, (c) => `\\${c}`));
    expect(body).not.toMatch(/mergerfalcon|board|applies only/);
    // A reason about this share's own terms (a level, an expiry) is kept whole.
    const level = "allow[0] partners/x allows at most developer";
    expect(noticeBody({ ...hostile, reason: level }, { dueDate: "2026-12-07", grace: "7d", from: "gitlab.shares" })).toContain("allows at most developer");
  });

  it("closing notes escape what they quote, and never say what a subject read by id is: only the report does", () => {
    const note = closingNote({ kind: "not-notify", onStray: "report", from: "gitlab.shares.overrides[0] (@all)" });
    expect(live(note)).toEqual([]);
    expect(closingNote({ kind: "duplicate", of: 7 })).toContain("#7");
    // A marker may be pointed at any subject by whoever may edit the issue: its path stays out of the note.
    expect(closingNote({ kind: "no-longer-stray", why: "project secret/skunkworks is no longer in the policy's scope" })).not.toContain("skunkworks");
  });
});
