import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planFile, PlanFileError, readPlanFile, writePlanFile, type PlanFile, type ShareRemoval } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { registerSecret } from "../../../lib/redact/index.ts";
import { standardPolicy } from "../../support/policies.ts";

const HOUR = 3_600_000;
const URL_ = "https://gitlab.example.com";
const policy = parsePolicy(standardPolicy(), "/repo/warden.yaml");
const removal: ShareRemoval = {
  type: "remove-group-share", kind: "group", sharedGroupId: 4, sharedGroup: "acme/platform", groupId: 23, group: "partners/qa",
  accessLevel: 30, expiresAt: "2031-01-31", memberRoleId: 7, reason: "no allow rule matches", status: "planned",
};
const at = new Date("2026-11-27T12:00:00.000Z");
const make = (over: Partial<Parameters<typeof planFile>[0]> = {}) =>
  planFile({ removals: [removal], policy, gitlabUrl: `${URL_}/`, createdAt: at, wardenVersion: "1.2.3", unmatchedRules: [], ...over });
const read = (plan: unknown, expect_: Partial<Parameters<typeof readPlanFile>[2]> = {}) =>
  readPlanFile(typeof plan === "string" ? plan : JSON.stringify(plan), "plan.json", { gitlabUrl: URL_, maxAgeMs: 24 * HOUR, now: new Date(at.getTime() + HOUR), ...expect_ });

describe("the plan file", () => {
  it("records the removals as seen, the policy (text, source, SHA-256), the origin, when and by which Warden, and reads back", () => {
    const plan = make({ gitlabUrl: "https://gitlab.example.com/" });
    expect(plan).toEqual({
      format: "warden-plan", formatVersion: 1, createdAt: "2026-11-27T12:00:00.000Z", wardenVersion: "1.2.3", gitlabUrl: URL_,
      policy: { source: "file", path: "/repo/warden.yaml", sha256: policy.source.sha256, text: policy.text },
      unmatchedRules: [],
      removals: [{ type: "remove-group-share", kind: "group", sharedGroupId: 4, sharedGroup: "acme/platform", groupId: 23, group: "partners/qa", accessLevel: 30, expiresAt: "2031-01-31", memberRoleId: 7, reason: "no allow rule matches" }],
      checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const back = read(plan);
    expect(back.plan).toEqual(plan);
    expect(back.policy.source).toEqual(policy.source);
    expect(back.policy.gitlab?.guard.maxRemovals).toBe(1000);
  });

  it("the checksum does not depend on key order or layout", () => {
    const plan = make();
    const reordered = Object.fromEntries(Object.entries(plan).reverse());
    expect(read(JSON.stringify(reordered, null, 7)).plan.checksum).toBe(plan.checksum);
  });

  const refusals: [string, (p: PlanFile) => unknown, RegExp, Partial<Parameters<typeof readPlanFile>[2]>?][] = [
    ["not JSON", () => "version: 1\n", /^plan\.json is not a Warden plan file \(write one with: warden enforce --out plan\.json\)$/],
    ["another JSON (a report)", () => ({ job: "enforce", dryRun: true, actions: [] }), /is not a Warden plan file/],
    ["an unknown format version", (p) => ({ ...p, formatVersion: 2 }), /plan format version 2 \(written by Warden 1\.2\.3\) is unknown to this Warden, which reads version 1: apply it with the Warden that wrote it/],
    ["edited: a level lowered", (p) => ({ ...p, removals: [{ ...p.removals[0], accessLevel: 10 }] }), /plan\.json was edited after it was written \(its checksum does not match its content\): plan again/],
    ["edited: a removal added", (p) => ({ ...p, removals: [...p.removals, { ...p.removals[0], groupId: 99 }] }), /was edited after it was written/],
    ["edited: the checksum dropped", ({ checksum: _, ...p }) => p, /was edited after it was written/],
    ["made for another GitLab", (p) => p, /plan\.json was made for https:\/\/gitlab\.example\.com, not for GITLAB_URL's https:\/\/other\.example\.com: set GITLAB_URL/, { gitlabUrl: "https://other.example.com" }],
    ["made for the same host on another port", (p) => p, /not for GITLAB_URL's https:\/\/gitlab\.example\.com:8443/, { gitlabUrl: "https://gitlab.example.com:8443" }],
    // Two instances on one host under relative URLs: a staging plan's ids would name other projects in production.
    ["made for another GitLab on the same host, under another path", (p) => p, /plan\.json was made for https:\/\/gitlab\.example\.com, not for GITLAB_URL's https:\/\/gitlab\.example\.com\/prod: set GITLAB_URL/, { gitlabUrl: "https://gitlab.example.com/prod/" }],
    ["older than the maximum age", (p) => p, /made at 2026-11-27T12:00:00\.000Z, 25\.0 hours ago, older than --max-plan-age \(24\.0 hours\): plan again/, { now: new Date(at.getTime() + 25 * HOUR) }],
    ["older than 90 minutes", (p) => p, /100 minutes ago, older than --max-plan-age \(90 minutes\)/, { now: new Date(at.getTime() + 100 * 60_000), maxAgeMs: 90 * 60_000 }],
    ["from the future beyond a few minutes' skew", (p) => p, /in the future of this machine's clock \(2026-11-27T11:50:00\.000Z\)/, { now: new Date(at.getTime() - 10 * 60_000) }],
  ];
  it.each(refusals)("refuses %s, naming the cause and the fix", (_, change, message, expectations) => {
    expect(() => read(change(make()), expectations)).toThrow(PlanFileError);
    expect(() => read(change(make()), expectations)).toThrow(message);
  });

  it("accepts a plan a minute in the future (clock skew) and one 2 days old under --max-plan-age 2d", () => {
    expect(() => read(make(), { now: new Date(at.getTime() - 60_000) })).not.toThrow();
    expect(() => read(make(), { now: new Date(at.getTime() + 47 * HOUR), maxAgeMs: 48 * HOUR })).not.toThrow();
  });

  it("refuses a policy text whose SHA-256 is not the one recorded, even with a checksum made to match", () => {
    const plan = make({ policy: { ...policy, text: policy.text.replace("maxRemovals: 1000", "maxRemovals: 100000") } });
    expect(() => read(plan)).toThrow(/plan\.json: its policy's text does not have the SHA-256 it records/);
  });

  it("refuses a plan nested deeper than any plan is, naming the cause, rather than failing on its checksum with a stack overflow", () => {
    const depth = 100_000;
    const text = JSON.stringify(make()).replace(/\}$/, `,"x":${"[".repeat(depth)}${"]".repeat(depth)}}`);
    expect(() => read(text)).toThrow(PlanFileError);
    expect(() => read(text)).toThrow(/plan\.json is not a Warden plan file: it is nested more than \d+ levels deep/);
  });

  it("is written whole or not at all: through a temporary file renamed over the target, none left behind", () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-plan-"));
    const path = join(dir, "plan.json");
    writeFileSync(path, "the previous plan");
    writePlanFile(path, make());
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(make());
    expect(readdirSync(dir)).toEqual(["plan.json"]);
    expect(() => writePlanFile(join(dir, "missing", "plan.json"), make())).toThrow(/cannot write the plan to .*missing\/plan\.json: ENOENT/);
    expect(readdirSync(dir)).toEqual(["plan.json"]);
  });

  it("keeps who added each share, and writes nothing that holds a credential Warden was given", () => {
    const attributed = { ...removal, addedBy: { name: "Jane Doe", username: "jane", at: "2026-11-20T09:30:00.000Z", eventId: 7 } };
    const unattributed = { ...removal, groupId: 24, addedBy: null, attribution: "not visible" as const };
    const plan = make({ removals: [attributed, unattributed] });
    expect(read(plan).plan.removals).toEqual([
      expect.objectContaining({ addedBy: attributed.addedBy }),
      expect.objectContaining({ addedBy: null, attribution: "not visible" }),
    ]);
    const dir = mkdtempSync(join(tmpdir(), "warden-plan-"));
    const secret = "glpat-plan-file-test-Zq81xk3";
    registerSecret(secret);
    const leaky = parsePolicy(`${standardPolicy()}# token ${secret}\n`, "/repo/warden.yaml");
    expect(() => writePlanFile(join(dir, "plan.json"), make({ policy: leaky }))).toThrow(PlanFileError);
    expect(() => writePlanFile(join(dir, "plan.json"), make({ policy: leaky }))).toThrow(/nothing was written to .*plan\.json: the plan would hold a credential, or something shaped like one, in the policy.s text/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("is not made from a policy whose text holds the plan key, which lib/redact does not know (a key a person typed, registered, would be an oracle)", () => {
    const key = "a-plan-key-of-at-least-32-characters-0001";
    const holding = parsePolicy(`${standardPolicy()}# plan key ${key}\n`, "/repo/warden.yaml");
    expect(() => make({ policy: holding, key })).toThrow(new PlanFileError("no plan was written: the policy's text holds WARDEN_PLAN_KEY; remove it from the policy, and plan again"));
    expect(make({ key }).signature).toMatch(/^hmac-sha256:/);
  });
});
