import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { EnforceReport, RestoreReport } from "../../lib/jobs/index.ts";
import { generateOrganisation } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { captureLogs, coldEnforce, lambdaContext, writePolicy } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { validReport } from "../support/report.ts";

const world = lambdaWorld({
  policy: standardPolicy(),
  // Expiry edge days are generated relative to now; none of the removed shares has expired yet.
  gitlab: () => ({ dataset: generateOrganisation({ projects: 120, seed: 7, groupShares: true, now: new Date(Date.now() + 7 * 86_400_000) }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});
let badPolicyPath: string;

/** The standard policy with its rule for partners/contractor-x left out: the run under it removes shares the standard one allows. */
const badPolicy = () => standardPolicy().replace(/      - group: "partners\/contractor-x"\n(        .*\n)*?(?=      - |    exempt)/, "");

beforeAll(async () => {
  badPolicyPath = await writePolicy(badPolicy());
});

const shares = () =>
  [...world.gitlab.dataset.projects.map((p) => ["project", p] as const), ...world.gitlab.dataset.groups.map((g) => ["group", g] as const)]
    .flatMap(([kind, o]) => o.shared_with_groups.map((s) => JSON.stringify([kind, o.id, s.group_id, s.group_access_level, s.expires_at, "member_role_id" in s ? s.member_role_id ?? null : null])))
    .sort();
const posts = () => (world.gitlab.counters.byRoute["POST /projects/:id/share"] ?? 0) + (world.gitlab.counters.byRoute["POST /groups/:id/share"] ?? 0);

/**
 * An applying enforce run through the Lambda under the bad policy (the policy is fixed afterwards): its
 * report, and its audit lines as Powertools logged them (at log level INFO).
 */
async function applyEnforce() {
  vi.stubEnv("WARDEN_POLICY", badPolicyPath);
  const handler = await coldEnforce();
  const logs = captureLogs();
  try {
    const report = (await handler({ dryRun: false })) as EnforceReport;
    return { report, lines: logs.lines().filter((l) => String(l["message"]).startsWith("remove-")) };
  } finally {
    logs.restore();
    vi.stubEnv("WARDEN_POLICY", world.policyPath);
  }
}

const keyOf = (a: RestoreReport["actions"][number]) => JSON.stringify([a.kind, a.kind === "project" ? a.projectId : a.sharedGroupId, a.groupId]);
/** The shares as they were, but for those the restore skipped as not allowed by the policy. */
const withoutNotAllowed = (original: string[], report: RestoreReport) => {
  const left = new Set(report.actions.filter((a) => a.status === "skipped" && a.policy).map(keyOf));
  return original.filter((s) => !left.has(JSON.stringify(JSON.parse(s).slice(0, 3))));
};

describe("enforce Lambda: { restore }", () => {
  it("runs dry with the report alone, and restores with dryRun: false, bringing back every share the fixed policy allows", async () => {
    const original = shares();
    const { report: removal } = await applyEnforce();
    expect(new Set(removal.actions.map((a) => a.kind))).toEqual(new Set(["project", "group"]));
    const handler = await coldEnforce();
    world.gitlab.resetCounters();

    const dry = (await handler({ restore: removal })) as RestoreReport;
    const { notAllowed } = dry.summary;
    expect(notAllowed).toBeGreaterThan(0);
    expect(validReport(dry)).toMatchObject({ job: "restore", dryRun: true, summary: { restores: removal.summary.removed - notAllowed, restored: 0, includeStray: false } });
    expect(posts()).toBe(0);

    const applied = (await handler({ restore: removal, dryRun: false })) as RestoreReport;
    expect(validReport(applied)).toMatchObject({ job: "restore", dryRun: false, summary: { restored: removal.summary.removed - notAllowed, skipped: notAllowed, failed: 0, complete: true } });
    expect(posts()).toBe(removal.summary.removed - notAllowed);
    expect(shares()).toEqual(withoutNotAllowed(original, applied));
  });

  it("a console restore of shares the policy does not allow skips them, creating nothing, unless includeStray: true (then with a warning)", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/") && !p.path_with_namespace.startsWith("acme/legacy/"))!;
    const outside = world.gitlab.dataset.groups.find((g) => !g.full_path.startsWith("acme") && g.full_path !== "partners/contractor-x" && !project.shared_with_groups.some((s) => s.group_id === g.id))!;
    // Whoever writes the event chooses the share, its level, and the name it goes by.
    const restore = { job: "enforce", dryRun: false, actions: [{ type: "remove-share", kind: "project", projectId: project.id, project: project.path_with_namespace, groupId: outside.id, group: "acme/looks-allowed", accessLevel: 50, expiresAt: null, reason: "x", status: "done" }] };
    const handler = await coldEnforce();
    const skipped = validReport((await handler({ restore, dryRun: false })) as RestoreReport);
    expect(skipped.actions).toMatchObject([{ status: "skipped", group: `group #${outside.id}`, policy: { verdict: "stray" }, note: expect.stringMatching(/^the policy does not allow it .*change the policy first/) }]);
    expect(skipped.warnings.join("\n")).toMatch(/1 share the current policy does not allow: not restored/);
    expect(posts()).toBe(0);

    const included = validReport((await handler({ restore, dryRun: false, includeStray: true })) as RestoreReport);
    expect(included).toMatchObject({ summary: { restored: 1, notAllowed: 1, includeStray: true }, actions: [{ status: "done", policy: { verdict: "stray" } }] });
    expect(included.warnings.join("\n")).toMatch(/includeStray: 1 share the current policy does not allow re-created; a later run removes them again/);
    expect(project.shared_with_groups.find((s) => s.group_id === outside.id)).toMatchObject({ group_access_level: 50 });
    expect(posts()).toBe(1);
  });

  it("restores from the Lambda's own audit lines, as objects, as strings, or as one string", async () => {
    const original = shares();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    // The first restore leaves out the strays; the runs after it find only what the bad policy removes again.
    let expected: string[] | undefined;
    for (const form of ["objects", "strings", "string"] as const) {
      const { report: removal, lines } = await applyEnforce();
      const handler = await coldEnforce();
      // One line per removal as GitLab answered, and a group share's confirmation after it.
      expect(lines.filter((l) => !l["confirmation"])).toHaveLength(removal.actions.length);
      expect(lines.filter((l) => l["confirmation"] === true)).toHaveLength(removal.actions.filter((a) => a.kind === "group").length);
      expect(lines[0]).toMatchObject({ level: "INFO", service: "warden", message: expect.stringMatching(/^remove-(group-)?share$/) });
      const text = lines.map((l) => JSON.stringify(l));
      const restore = form === "objects" ? { lines } : form === "strings" ? { lines: text } : text.join("\n");
      // Its own lines too are held back from the runner's output (and checked for credentials).
      const logs = captureLogs();
      const applied = (await handler({ restore, dryRun: false }).finally(() => logs.restore())) as RestoreReport;
      expect(applied.summary).toMatchObject({ restored: removal.summary.removed - applied.summary.notAllowed, failed: 0 });
      expected ??= withoutNotAllowed(original, applied);
      expect(shares()).toEqual(expected);
    }
  });

  it.each([
    [{ restore: { job: "enforce", dryRun: true, actions: [] } }, "invalid event: restore: this is the report of a dry run, which removed nothing: restore reads the report of enforce --apply"],
    [{ restore: { job: "workflows", dryRun: false, actions: [] } }, "invalid event: restore: this is the report of a workflows run: restore reads the report of an enforce or apply run"],
    [{ restore: { job: "enforce", dryRun: false, actions: [{ type: "remove-share", projectId: "4" }] } }, /^invalid event: restore: not a usable enforce report: actions\[0\]\.projectId: /],
    [{ restore: "not a log" }, /^invalid event: restore: no remove-share or remove-group-share audit line found/],
    [{ restore: { lines: [] } }, /^invalid event: restore: no remove-share or remove-group-share audit line found/],
    [{ restore: 42 }, /^invalid event: restore: expected the JSON report of an applying enforce run/],
    [{ restore: { job: "enforce", dryRun: false, actions: [] }, source: "schedule" }, "invalid event: restore: a restore is asked by a person, not by the schedule: leave out source"],
    [{ restore: { job: "enforce", dryRun: false, actions: [] }, dryrun: false }, 'invalid event: unknown field "dryrun"'],
    [{ includeStray: true, dryRun: false }, "invalid event: includeStray: includeStray is for a restore: it goes with restore"],
    [{ restore: { job: "enforce", dryRun: false, actions: [] }, includeStray: "yes" }, /^invalid event: includeStray: /],
    [{ restore: "latest:sweep" }, /^invalid event: restore: a stored run is named s3:\/\/<bucket>\/<key>, "latest" \(the latest sweep\) or "latest:<trigger>"/],
  ])("fails on %j naming what is wrong, and calls nothing", async (event, message) => {
    await expect((await coldEnforce())(event)).rejects.toThrow(message);
    expect(world.gitlab.counters.requests).toBe(0);
    expect(world.secretsManager.reads).toHaveLength(0);
  });

  it("the workflows function takes no restore", async () => {
    vi.resetModules();
    const { handler } = await import("../../functions/workflows.ts");
    await expect(handler({ restore: { job: "enforce", dryRun: false, actions: [] } } as never, lambdaContext())).rejects.toThrow('invalid event: unknown field "restore"');
  });

  it("a report-only stage runs a restore dry and refuses dryRun: false", async () => {
    const { report: removal } = await applyEnforce();
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    const only = await coldEnforce();
    await expect(only({ restore: removal })).resolves.toMatchObject({ job: "restore", dryRun: true });
    await expect(only({ restore: removal, dryRun: false })).rejects.toThrow('this stage is report-only (WARDEN_REPORT_ONLY=true): "dryRun": false is refused');
    expect(posts()).toBe(0);
  });

  it("the console example is a valid event", async () => {
    const example = JSON.parse(await readFile(new URL("../../examples/console-events/enforce-restore.json", import.meta.url), "utf8"));
    const report = (await (await coldEnforce())(example)) as RestoreReport;
    expect(report).toMatchObject({ job: "restore", dryRun: true });
  });
});
