/** Restore's input (lib/jobs/restore/input.ts): an enforce report or audit lines, read strictly, refused with the reason, never echoing a credential. */
import { describe, expect, it } from "vitest";
import { parseRestoreText, restoreInputFrom } from "../../../lib/jobs/index.ts";
import { registerSecret } from "../../../lib/redact/index.ts";

describe("restore input", () => {
  const report = (over: object) => JSON.stringify({ job: "enforce", dryRun: false, summary: {}, actions: [], stats: {}, warnings: [], ...over });
  const action = { type: "remove-share", kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 30, expiresAt: null, reason: "stray", status: "done" };
  const line = (fields: object) => JSON.stringify({ level: "INFO", message: "remove-share", kind: "project", project: "acme/api", projectId: 4, group: "partners/x", groupId: 9, accessLevel: 30, expiresAt: "2031-06-30", rule: "stray", outcome: "done", timestamp: "2026-01-01T00:00:00Z", ...fields });

  it.each([
    ["a dry run's report", report({ dryRun: true }), /report of a dry run, which removed nothing/],
    ["a workflows report", report({ job: "workflows", dryRun: false }), /report of a workflows run: restore reads the report of an enforce or apply run/],
    ["a field of the wrong type", report({ actions: [{ ...action, accessLevel: "30" }] }), /^not a usable enforce report: actions\[0\]\.accessLevel: .*expected (int|number)/],
    ["an expiry that is not a date", report({ actions: [{ ...action, expiresAt: "soon" }] }), /actions\[0\]\.expiresAt/],
    ["a report without dryRun", report({ dryRun: undefined }), /dryRun/],
    ["a report from before expiry was recorded", report({ actions: [{ ...action, kind: undefined, expiresAt: undefined }] }), /actions\[0\]\.expiresAt: missing: written by a Warden before share expiry was recorded/],
    ["an audit line from before expiry was recorded", `${line({ kind: undefined, expiresAt: undefined })}\n`, /^line 1 \(remove-share\): kind: missing: written by a Warden before share expiry was recorded/],
    ["a JSON array", "[1, 2]", /got a JSON array/],
    ["an audit line missing its level", `${line({ accessLevel: undefined })}\n`, /^line 1 \(remove-share\): accessLevel: /],
    ["a removal line cut short", `{"message":"job started"}\n${line({}).slice(0, 80)}\n`, /^line 2 names a removal but is not a complete JSON object/],
    ["a text with no audit line", "hello\nworld\n", /no remove-share or remove-group-share audit line found, and not an enforce report \(3 lines read; it starts "hello"\)/],
  ])("refuses %s, naming what is wrong", (_, text, message) => {
    expect(() => parseRestoreText(text)).toThrow(message);
  });

  it("never echoes a credential from the file", () => {
    registerSecret("glpat-restore-input-secret");
    expect(() => parseRestoreText("glpat-restore-input-secret is not a report\n")).toThrow(/it starts "\[REDACTED\]/);
    const leaked = JSON.stringify({ job: "glpat-restore-input-secret" });
    expect(() => parseRestoreText(leaked)).toThrow(/report of a \[REDACTED\]/);
  });

  it("reads CLI and Powertools audit lines, skipping other lines, restoring only what was done, each share once", () => {
    const powertools = JSON.stringify({ level: "INFO", message: "remove-group-share", service: "warden", cold_start: true, function_name: "warden-Enforce", xray_trace_id: "1-abc", kind: "group", sharedGroup: "acme/platform", sharedGroupId: 3, group: "auditors", groupId: 40, accessLevel: 20, expiresAt: null, memberRoleId: 7, rule: "stray", outcome: "done", timestamp: "2026-01-01T00:00:00Z" });
    const input = parseRestoreText(
      [
        "warden enforce: starting",
        line({}),
        JSON.stringify({ level: "INFO", message: "job finished", summary: {} }),
        `2026-01-01T00:00:00.000Z warden-Enforce/[$LATEST]abc ${powertools}`,
        line({ projectId: 5, outcome: "already-gone" }),
        line({ accessLevel: 40 }),
        "",
      ].join("\n"),
    );
    expect(input.removals).toEqual([
      { kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 40, expiresAt: "2031-06-30" },
      { kind: "group", sharedGroupId: 3, sharedGroup: "acme/platform", groupId: 40, group: "auditors", accessLevel: 20, expiresAt: null, memberRoleId: 7 },
    ]);
    expect(input.notes.join("\n")).toMatch(/2 lines of the input are not removal audit lines[\s\S]*1 already-gone: not restored[\s\S]*1 removal appears more than once/);
  });

  it("an audit line without expiresAt or memberRoleId has none: Powertools Logger drops null fields", () => {
    const input = parseRestoreText(line({ expiresAt: undefined, memberRoleId: undefined }));
    expect(input.removals).toEqual([{ kind: "project", projectId: 4, project: "acme/api", groupId: 9, group: "partners/x", accessLevel: 30, expiresAt: null }]);
  });

  it("the Lambda's forms: a report object, { lines } of strings or objects, or one string", () => {
    const fromReport = restoreInputFrom(JSON.parse(report({ actions: [action] })));
    const fromObjects = restoreInputFrom({ lines: [JSON.parse(line({ expiresAt: null }))] });
    const fromStrings = restoreInputFrom({ lines: [line({ expiresAt: null })] });
    const fromString = restoreInputFrom(`${line({ expiresAt: null })}\n`);
    for (const input of [fromObjects, fromStrings, fromString]) expect(input.removals).toEqual(fromReport.removals);
    expect(() => restoreInputFrom({ lines: "x" })).toThrow(/lines: /);
    expect(() => restoreInputFrom(42)).toThrow(/expected the JSON report of an applying enforce run/);
  });
});
