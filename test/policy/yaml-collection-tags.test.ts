/**
 * A collection tagged !!omap or !!set (the yaml package knows both, with or without `%YAML 1.1`) is read as
 * a JavaScript Map or Set, whose entries the schema never sees: a section whose fields all have defaults
 * was taken as if empty, so `guard: !!omap [{maxRemovals: 3}]` ran with 25 removals allowed, the
 * file's value silently dropped (a reviewer reads 3). Such a collection is refused, naming the line.
 */
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../lib/policy/index.ts";
import { refusalOf } from "../support/policies.ts";


const policy = (extra: string, header = "") => `${header}version: 1\ngitlab:\n  shares:\n    allow: [{group: partners/x}]\n${extra}`;

describe("collection tags the schema cannot see into (parse.ts notAsWritten)", () => {
  it.each([
    ["an !!omap guard", policy("  guard: !!omap [{maxRemovals: 3}]\n")],
    ["an !!omap guard under %YAML 1.1", policy("  guard: !!omap [{maxRemovals: 3}]\n", "%YAML 1.1\n---\n")],
    ["an !!set guard", policy("  guard: !!set {maxRemovals}\n", "%YAML 1.1\n---\n")],
    ["an !!omap watch budget", policy("  watch: !!omap\n    - maxRequestsPerHour: 60\n")],
    ["an !!omap notify section", "version: 1\nnotify: !!omap [{slack: problems}]\n"],
    ["an !!omap allow list", "version: 1\ngitlab:\n  shares:\n    allow: !!omap [{group: partners/x}]\n"],
  ])("%s is refused, naming its line and the tag, not read as an empty section", (_, text) => {
    const message = refusalOf(text);
    expect(message).toMatch(/line \d+, column \d+: .*!!(omap|set)/);
    expect(message).toMatch(/remove the tag/);
  });

  it("a plain or !!map / !!seq tagged collection is read as written", () => {
    expect(parsePolicy(policy("  guard: !!map {maxRemovals: 3}\n"), "warden.yaml").gitlab?.guard.maxRemovals).toBe(3);
    expect(parsePolicy("version: 1\ngitlab:\n  shares:\n    allow: !!seq [{group: partners/x}]\n", "warden.yaml").gitlab?.shares.allow).toHaveLength(1);
  });
});
