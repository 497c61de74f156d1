/**
 * Audit lines of several runs, newest first: CloudWatch Logs Insights sorts by `@timestamp desc` unless told
 * otherwise, and its export keeps that order. Restore takes each share "as it was last removed", and read
 * in the order given, the last line was the OLDEST removal: a share removed at maintainer one week, given
 * again at guest and removed at guest the next, was re-created at maintainer, more access than it had when
 * last removed. And a group share's confirmation ("failed": GitLab kept it) read before its removal's line
 * did not undo it. Every line carries its `timestamp` (Powertools' and the CLI's): read by it, the order
 * the lines were exported in does not matter.
 */
import { describe, expect, it } from "vitest";
import { parseRestoreText } from "../../../lib/jobs/index.ts";

describe("restore input: audit lines out of time order", () => {
  const project = (at: string, fields: object = {}) =>
    JSON.stringify({ level: "INFO", message: "remove-share", kind: "project", project: "acme/api", projectId: 4, group: "partners/x", groupId: 9, accessLevel: 30, expiresAt: null, rule: "stray", outcome: "done", timestamp: at, ...fields });
  const group = (at: string, fields: object = {}) =>
    JSON.stringify({ level: "INFO", message: "remove-group-share", kind: "group", sharedGroup: "acme/platform", sharedGroupId: 3, group: "auditors", groupId: 40, accessLevel: 20, outcome: "done", timestamp: at, ...fields });

  it("newest first, the share is restored as it was last removed (guest), not as an older run removed it (maintainer)", () => {
    const input = parseRestoreText([project("2026-03-08T02:00:00.000Z", { accessLevel: 10 }), project("2026-03-01T02:00:00.000Z", { accessLevel: 40 })].join("\n"));
    expect(input.removals).toEqual([{ kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 10, expiresAt: null }]);
  });

  it("newest first, a confirmation that GitLab kept a group share still undoes its removal: nothing to restore", () => {
    const input = parseRestoreText([group("2026-03-08T02:00:01.000Z", { outcome: "failed", confirmation: true }), group("2026-03-08T02:00:00.000Z"), project("2026-03-08T01:59:00.000Z")].join("\n"));
    expect(input.removals.map((r) => r.kind)).toEqual(["project"]);
    expect(input.notes.join("\n")).toMatch(/1 kept by GitLab though it answered success: not restored/);
  });

  it("Powertools' times with an offset (TZ set on the function) are compared as instants", () => {
    const input = parseRestoreText([project("2026-03-08T03:00:00.000+01:00", { accessLevel: 40 }), project("2026-03-08T02:30:00.000Z", { accessLevel: 10 })].join("\n"));
    expect(input.removals[0]?.accessLevel).toBe(10);
  });

  it("lines without a time (an earlier Warden's, or a hand-made input) are taken in the order given", () => {
    const input = parseRestoreText([project("", { accessLevel: 10, timestamp: undefined }), project("", { accessLevel: 40, timestamp: undefined })].join("\n"));
    expect(input.removals[0]?.accessLevel).toBe(40);
  });
});
