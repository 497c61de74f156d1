/**
 * The merge request note is cut to GitLab's 1,000,000 characters after escaping and
 * redaction (lib/jobs/enforce/mr-note.ts, noteBody) on a code point: a plain `slice` (until the escape11 review) could end in half of a
 * surrogate pair: the body then holds a lone surrogate (JSON.stringify sends it as `\ud83d`, which is
 * no character). Every other cut in Warden avoids that (cutTitle, render/slack.ts's cut, redactThenCut,
 * notify.ts's cut), the Slack one "text Slack may refuse, the answer lost". The comparison's rows are
 * held to 900,000 characters, but its warnings are not (comparisonMarkdown), so a note can reach the cut.
 */
import { describe, expect, it } from "vitest";
import { noteBody } from "../../../lib/jobs/enforce/mr-note.ts";
import { NOTE_MARKER } from "../../../lib/jobs/render/index.ts";

describe("the merge request note cut to GitLab's limit", () => {
  it.each([0, 1])("ends on a whole character (offset %i)", (offset) => {
    const markdown = `${NOTE_MARKER}\n${"x".repeat(999_000 + offset)}${"- ⚠️ 😀 ".repeat(2_000)}`;
    const body = noteBody(markdown);
    expect(body.length).toBeLessThanOrEqual(1_000_000);
    expect(body.isWellFormed()).toBe(true);
  });
});
