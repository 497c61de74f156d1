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

/** The same in a title, which GitLab renders without Markdown and shows HTML in as text: mentions, references, emoji and URLs. */
const liveInTitle = (text: string) => text.match(/@[a-z]|~[a-z]|#\d|:[a-z_]+:|[a-z][a-z0-9+.-]+:\/\//gi) ?? [];

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
    expect(liveInTitle(title)).toEqual([]);
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

  it("the title fits GitLab's 255 characters however long the paths, cut on a code point", () => {
    // A path alone may be 255 characters.
    for (let n = 100; n < 140; n++) {
      for (const project of [`acme/${"a-".repeat(n)}`, `acme/${"x".repeat(n)}${"😀".repeat(n)}`]) {
        const title = noticeTitle({ ...hostile, project, group: `partners/${"g.".repeat(n)}` });
        expect(Array.from(title).length, project).toBeLessThanOrEqual(255);
        expect(title).toMatch(/^Stray share: project acme/);
        expect(title.endsWith("…")).toBe(true);
        // No half of an emoji before the ellipsis.
        expect(title.codePointAt(title.length - 2)! & 0xfc00).not.toBe(0xd800);
      }
    }
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

/**
 * GitLab does not render an issue's title as Markdown: titles go through Banzai's SingleLinePipeline (HTML
 * entities, sanitisation, emoji, autolinks and the reference filters: lib/banzai/pipeline/
 * single_line_pipeline.rb, no MarkdownFilter), so a backslash would show as one. A title needs what the
 * reference filters would act on broken (the zero-width joiner after @, #, !, ~ …: a title is mentionable),
 * not Markdown's backslashes.
 */
describe("notice text: the title reads as GitLab shows it", () => {
  const share: ShareRemoval = {
    type: "remove-share", kind: "project", projectId: 12, project: "acme/app-one.v2/my_service",
    groupId: 34, group: "partners/contractor-x", accessLevel: 30, expiresAt: null, reason: "no allow rule matches",
    status: "notify",
  };

  it("names the share's paths as they are: GitLab shows a title's backslashes literally", () => {
    expect(noticeTitle(share)).toBe("Stray share: project acme/app-one.v2/my_service shared with partners/contractor-x (developer)");
  });

  it("still mentions no one and references nothing when a server sends such a name (a title is mentionable)", () => {
    const title = noticeTitle({ ...share, group: "@all #1 ~label" });
    expect(title).not.toMatch(/(?<!\u200d)[@#~](?!\u200d)/);
  });
});
