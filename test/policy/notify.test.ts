import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePolicy, PolicyError, slackNotifyLevel } from "../../lib/policy/index.ts";

const parse = (notify: string) => parsePolicy(`version: 1\n${notify}`, "notify.yaml");

function issuesOf(notify: string) {
  try {
    parse(notify);
  } catch (error) {
    if (error instanceof PolicyError) return error.issues;
    throw error;
  }
  throw new Error("expected a PolicyError");
}

describe("the policy's notify section", () => {
  it.each(["always", "changes", "problems"] as const)("takes notify.slack: %s", (level) => {
    const policy = parse(`notify:\n  slack: ${level}\n`);
    expect(policy.notify).toEqual({ slack: level });
    expect(slackNotifyLevel(policy)).toBe(level);
  });

  it("defaults to changes, with or without the section", () => {
    expect(parse("notify: {}\n").notify).toEqual({ slack: "changes" });
    const without = parse("");
    expect(without.notify).toBeUndefined();
    expect(slackNotifyLevel(without)).toBe("changes");
  });

  it("names the field and the values it takes, as for every other field", () => {
    expect(issuesOf("notify:\n  slack: sometimes\n")).toEqual([{ path: "notify.slack", message: 'expected always, changes or problems, got "sometimes"' }]);
    expect(issuesOf("notify:\n  email: ops@example.com\n")).toEqual([{ path: "notify.email", message: "unknown field (expected slack)" }]);
    expect(issuesOf("notify: always\n")).toEqual([{ path: "notify", message: 'expected a mapping, got "always"' }]);
  });

  it("is documented in examples/warden.yaml", () => {
    const example = parsePolicy(readFileSync(new URL("../../examples/warden.yaml", import.meta.url), "utf8"), "warden.yaml");
    expect(example.notify).toEqual({ slack: "changes" });
  });
});
