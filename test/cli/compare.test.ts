/**
 * A merge request's policy change through the CLI (issue 22 points 2 and 3): `warden enforce
 * --compare-policy-ref` against the loopback simulator, its exit codes, its refusals, and --mr-note's
 * one note, posted once and edited after, never someone else's.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnforceReport } from "../../lib/jobs/index.ts";
import { escapeMarkdown, NOTE_MARKER } from "../../lib/jobs/render/index.ts";
import { ACCESS, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { warden } from "../support/cli.ts";
import { forwardProxy } from "../support/forward-proxy.ts";
import { BASE, compareWorld, EXPECTED, HOSTILE_GROUP, MR_IID, POLICY_PROJECT, PROPOSED, shareName } from "../support/compare-world.ts";
import { reportJson } from "../support/report.ts";

const ADMIN = "glpat-sim-admin";
const NOTES_TOKEN = "glpat-notes-bot-01";
const TOKENS = { [ADMIN]: { admin: true }, "glpat-mallory-01": { admin: false, username: "mallory" }, [NOTES_TOKEN]: { admin: false, username: "notes-bot" } };
/** A second merge request, where only someone else's marked note exists; a third, noted with a token of its own. */
const OTHER_IID = 8;
const THIRD_IID = 9;
const FAULTY_IID = 10;
const FOURTH_IID = 11;
const FIFTH_IID = 12;
/** A merge request whose head GitLab names, for the note of an older pipeline's job. */
const SIXTH_IID = 13;
const [OLD_HEAD, NEW_HEAD] = ["a".repeat(40), "b".repeat(40)];

let sim: GitLabSim;
let repo: SimProject;
let checkout: string;
let env: Record<string, string>;

beforeAll(async () => {
  const dataset = compareWorld();
  dataset.mergeRequests!.push({ project_id: 20, iid: OTHER_IID }, { project_id: 20, iid: THIRD_IID }, { project_id: 20, iid: FAULTY_IID }, { project_id: 20, iid: FOURTH_IID }, { project_id: 20, iid: FIFTH_IID }, { project_id: 20, iid: SIXTH_IID, sha: NEW_HEAD });
  sim = await startGitLabSim({ dataset, tokens: TOKENS });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  // The note token's user writes notes there as a member (the project is private, as its group is).
  repo.members = { "notes-bot": ACCESS.reporter };
  sim.repositories.commit(repo, { "policies/warden.yaml": BASE });
  sim.repositories.commit(repo, { "policies/warden.yaml": PROPOSED }, "tighten");
  // The merge request pipeline's checkout of the proposed branch.
  checkout = mkdtempSync(join(tmpdir(), "warden-compare-"));
  writeFileSync(join(checkout, "warden.yaml"), PROPOSED);
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: ADMIN, CI_PROJECT_PATH: POLICY_PROJECT, CI_PROJECT_ID: String(repo.id), CI_PROJECT_DIR: checkout, CI_MERGE_REQUEST_IID: String(MR_IID) };
});
afterAll(() => sim.close());

const nonGets = () => Object.fromEntries(Object.entries(sim.counters.byRoute).filter(([route]) => !route.startsWith("GET ")));
const examined = () => Object.keys(sim.counters.byRoute).filter((r) => r.startsWith("GET /groups") || r.startsWith("GET /namespaces"));
const mainHead = () => sim.repositories.resolve(repo, "main")!.id;
const compare = (extra: string[] = [], more: Record<string, string> = {}) =>
  warden(["enforce", "--policy", join(checkout, "warden.yaml"), "--policy-path", "policies/warden.yaml", "--compare-policy-ref", "main", ...extra], { ...env, ...more });
const names = (report: EnforceReport) => {
  const c = report.comparison!;
  return { newlyRemoved: c.newlyRemoved.map(shareName).sort(), noLongerRemoved: c.noLongerRemoved.map(shareName).sort(), exemptionChanged: c.exemptionChanged.map(shareName).sort() };
};
const expected = { newlyRemoved: [...EXPECTED.newlyRemoved].sort(), noLongerRemoved: [...EXPECTED.noLongerRemoved].sort(), exemptionChanged: [...EXPECTED.exemptionChanged].sort() };

describe.sequential("warden enforce --compare-policy-ref", () => {
  it("judges the checkout's policy against the target branch's: each section exactly, exit 2, only GETs", async () => {
    sim.resetCounters();
    const run = await compare(["--format", "json"]);
    expect(run.stderr).toBe("");
    const report = reportJson<EnforceReport>(run.stdout);
    expect(names(report)).toEqual(expected);
    expect(report.comparison).toMatchObject({ baseRef: "main", baseCommitId: mainHead() });
    expect(run.code).toBe(2);
    expect(nonGets()).toEqual({});
  });

  it("the proposed policy from the merge request's branch, and the base path taken from it", async () => {
    const run = await warden(["enforce", "--json", "--policy-project", POLICY_PROJECT, "--policy-path", "policies/warden.yaml", "--policy-ref", "tighten", "--compare-policy-ref", "main"], env);
    expect(names(reportJson<EnforceReport>(run.stdout))).toEqual(expected);
    expect(run.code).toBe(2);
  });

  it("the --policy file's path in the repository is its path under CI_PROJECT_DIR", async () => {
    sim.repositories.commit(repo, { "warden.yaml": BASE });
    const run = await warden(["enforce", "--json", "--policy", join(checkout, "warden.yaml"), "--compare-policy-ref", "main"], env);
    expect(names(reportJson<EnforceReport>(run.stdout))).toEqual(expected);
  });

  it("exit 0 when the change alters nothing, though the policy finds strays", async () => {
    const run = await warden(["enforce", "--json", "--policy-project", POLICY_PROJECT, "--policy-path", "policies/warden.yaml", "--policy-ref", "main", "--compare-policy-ref", "main"], env);
    const report = reportJson<EnforceReport>(run.stdout);
    expect(report.actions.length).toBeGreaterThan(0);
    expect(names(report)).toEqual({ newlyRemoved: [], noLongerRemoved: [], exemptionChanged: [] });
    expect(run.code).toBe(0);
  });

  it("refuses --apply, --out, and --mr-note without a merge request, before any request", async () => {
    sim.resetCounters();
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["--apply"], {}, /--compare-policy-ref never removes anything: run it without --apply/],
      [["--out", join(checkout, "plan.json")], {}, /makes no plan to apply: run it without --out/],
      [["--mr-note"], { CI_MERGE_REQUEST_IID: "" }, /--mr-note needs the merge request: run it in a merge request pipeline/],
    ];
    for (const [args, more, message] of cases) {
      const run = await compare(args, more);
      expect(run.stderr).toMatch(message);
      expect(run.code).toBe(1);
    }
    expect(sim.counters.requests).toBe(0);
  });

  it("a base ref that does not exist fails closed, naming it, before the examination", async () => {
    sim.resetCounters();
    const run = await warden(["enforce", "--policy", join(checkout, "warden.yaml"), "--policy-path", "policies/warden.yaml", "--compare-policy-ref", "no/such-branch"], env);
    expect(run.stderr).toMatch(/the base policy to compare with: policy policies\/warden\.yaml in GitLab project security\/policies at no\/such-branch: cannot be read: the project has no branch, tag or commit "no\/such-branch": correct --compare-policy-ref/);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(examined()).toEqual([]);
  });

  it("--format markdown and text say what merging would do, every server text escaped", async () => {
    const md = await compare(["--format", "markdown"]);
    expect(md.stdout.split("\n")[0]).toBe(NOTE_MARKER);
    expect(md.stdout).toContain("### Merging this policy change would newly remove 3 shares\\, stop removing 3\\, change 2 exemptions\\, and changes gitlab\\.shares\\.allow\\, gitlab\\.shares\\.exempt\\: review them in the diff\\.");
    expect(md.stdout).toContain(`#### ${escapeMarkdown("Newly removed: stray under the proposed policy only (3)")}\n\n| Project or group | Share | Invited group |`);
    for (const raw of ["@all", "<b>", "](javascript", "| #1", "~bold"]) expect(md.stdout).not.toContain(raw);
    expect(md.stdout.split(NOTE_MARKER).length).toBe(2);
    const text = await compare(["--format", "text"]);
    expect(text.stdout.split("\n")[0]).toBe("Merging this policy change would newly remove 3 shares, stop removing 3, change 2 exemptions, and changes gitlab.shares.allow, gitlab.shares.exempt: review them in the diff.");
    expect(text.stdout).toContain(HOSTILE_GROUP);
  });

  it("--mr-note posts one note, then edits it on the next pipeline: one note, only GETs besides", async () => {
    sim.resetCounters();
    const first = await compare(["--mr-note"]);
    expect(first.code).toBe(2);
    expect(first.stderr).toMatch(new RegExp(`^posted note \\d+ on merge request !${MR_IID} of project ${repo.id}\\n$`));
    expect(nonGets()).toEqual({ "POST /projects/:id/merge_requests/:iid/notes": 1 });
    const notes = sim.notes.of(repo.id, MR_IID)!;
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body.startsWith(`${NOTE_MARKER}\n### Merging this policy change would newly remove 3 shares`)).toBe(true);
    expect(notes[0]!.body).not.toContain("@all");
    expect(notes[0]!.body).toContain(`@\u200dall`);

    sim.repositories.commit(repo, { "policies/warden.yaml": PROPOSED.replace('      - group: "outside"\n', "") });
    sim.resetCounters();
    const second = await compare(["--mr-note"]);
    expect(second.stderr).toBe(`edited note ${notes[0]!.id} on merge request !${MR_IID} of project ${repo.id}\n`);
    expect(nonGets()).toEqual({ "PUT /projects/:id/merge_requests/:iid/notes/:note_id": 1 });
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body).toContain("newly remove 0 shares\\, stop removing 2\\, change 0 exemptions");
    sim.repositories.commit(repo, { "policies/warden.yaml": BASE });
  });

  it("an older pipeline's job (its author retried it, or it finished last) leaves the note of the merge request's head as it is, which names its commit", async () => {
    const current = await compare(["--mr-note"], { CI_MERGE_REQUEST_IID: String(SIXTH_IID), CI_COMMIT_SHA: NEW_HEAD });
    expect(current.stderr).toMatch(/^posted note/);
    const [note] = sim.notes.of(repo.id, SIXTH_IID)!;
    expect(note!.body).toContain(`The policy at commit \`${NEW_HEAD.slice(0, 12)}\`, this merge request's head when compared`);
    const body = note!.body;
    sim.resetCounters();
    const older = await compare(["--mr-note"], { CI_MERGE_REQUEST_IID: String(SIXTH_IID), CI_COMMIT_SHA: OLD_HEAD });
    expect(older.stderr).toBe(`left the note on merge request !${SIXTH_IID} of project ${repo.id} as it is: this run compared commit ${OLD_HEAD}, and the merge request's head is now ${NEW_HEAD} (an older pipeline's job; the newer one's note stands)\n`);
    expect(nonGets()).toEqual({});
    expect(sim.notes.of(repo.id, SIXTH_IID)!.map((n) => n.body)).toEqual([body]);
    // Named on the command line, the merge request is not the pipeline's own: its commit says nothing of it.
    const named = await compare(["--mr-note", "--mr-note-project", String(repo.id), "--mr-note-iid", String(SIXTH_IID)], { CI_MERGE_REQUEST_IID: "", CI_COMMIT_SHA: OLD_HEAD });
    expect(named.stderr).toMatch(/^edited note/);
  });

  it("names no share's adder, whom only the instance's audit events record (an administrator's), in the comparison or the note", async () => {
    // Who shared acme/app/api with partners/x (newly removed under the proposed policy), as GitLab records it.
    sim.auditEvents.push({
      id: 9001, author_id: 50, entity_id: 5, entity_type: "Group", event_name: "project_group_link_created", created_at: new Date(Date.now() - 86_400_000).toISOString(),
      details: { author_name: "Adder Of Record", author_class: "User", add: "project_access", as: "Developer", target_id: 10, target_type: "Project", target_details: "acme/app/api", event_name: "project_group_link_created", entity_path: "partners/x" },
    });
    const run = await compare(["--mr-note", "--json"], { CI_MERGE_REQUEST_IID: String(FIFTH_IID) });
    const report = reportJson<EnforceReport>(run.stdout);
    expect(names(report)).toEqual(expected);
    expect(JSON.stringify(report.comparison)).not.toMatch(/Adder Of Record|addedBy|attribution/);
    expect(sim.notes.of(repo.id, FIFTH_IID)![0]!.body).not.toContain("Adder Of Record");
  });

  it("a marked note someone else wrote is never edited: Warden edits its own, or posts one", async () => {
    const mallory = { id: 50, username: "mallory" };
    const planted = sim.notes.add(repo.id, MR_IID, mallory, `${NOTE_MARKER}\nplanted`);
    const mine = sim.notes.of(repo.id, MR_IID)![0]!;
    await compare(["--mr-note"]);
    expect(planted.body).toBe(`${NOTE_MARKER}\nplanted`);
    expect(mine.updated_at > mine.created_at).toBe(true);

    const alone = sim.notes.add(repo.id, OTHER_IID, mallory, `${NOTE_MARKER}\nplanted`);
    sim.resetCounters();
    const run = await compare(["--mr-note"], { CI_MERGE_REQUEST_IID: String(OTHER_IID) });
    expect(run.stderr).toMatch(/^posted note/);
    expect(nonGets()).toEqual({ "POST /projects/:id/merge_requests/:iid/notes": 1 });
    expect(alone.body).toBe(`${NOTE_MARKER}\nplanted`);
    expect(sim.notes.of(repo.id, OTHER_IID)).toHaveLength(2);
  });

  it("writes the note with WARDEN_MR_NOTE_TOKEN when set, the examination keeping GITLAB_TOKEN", async () => {
    const run = await compare(["--mr-note"], { CI_MERGE_REQUEST_IID: String(THIRD_IID), WARDEN_MR_NOTE_TOKEN: NOTES_TOKEN });
    expect(run.stderr).toMatch(/^posted note/);
    expect(sim.notes.of(repo.id, THIRD_IID)!.map((n) => n.author.username)).toEqual(["notes-bot"]);
    await compare(["--mr-note"], { CI_MERGE_REQUEST_IID: String(THIRD_IID), WARDEN_MR_NOTE_TOKEN: NOTES_TOKEN });
    expect(sim.notes.of(repo.id, THIRD_IID)).toHaveLength(1);
  });

  it("writes the note with WARDEN_MR_NOTE_TOKEN through the egress proxy the run goes through (GitLab reachable only there)", async () => {
    // The note's client was made without the run's settings, the proxy among them: it connected directly, and failed.
    const proxy = await forwardProxy(sim.url);
    try {
      const run = await compare(["--mr-note", "--allow-http"], { GITLAB_URL: "http://gitlab.internal.test", HTTP_PROXY: proxy.url, CI_MERGE_REQUEST_IID: String(FOURTH_IID), WARDEN_MR_NOTE_TOKEN: NOTES_TOKEN });
      expect(run.stderr).toMatch(/^posted note/);
      expect(proxy.seen).toContainEqual(expect.stringMatching(/^POST http:\/\/gitlab\.internal\.test\/api\/v4\/projects\/\d+\/merge_requests\/11\/notes$/));
      expect(sim.notes.of(repo.id, FOURTH_IID)!.map((n) => n.author.username)).toEqual(["notes-bot"]);
    } finally {
      await proxy.close();
    }
  });

  it("a note POST that may have arrived is never sent again: the run fails, one note exists, the report was printed", async () => {
    sim.resetCounters();
    sim.addFaults({ route: "POST /projects/:id/merge_requests/:iid/notes", kind: "apply-then-status", status: 502, times: 1 });
    const run = await compare(["--mr-note", "--format", "json"], { CI_MERGE_REQUEST_IID: String(FAULTY_IID) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/502/);
    expect(names(reportJson<EnforceReport>(run.stdout))).toEqual(expected);
    expect(nonGets()).toEqual({ "POST /projects/:id/merge_requests/:iid/notes": 1 });
    expect(sim.notes.of(repo.id, FAULTY_IID)).toHaveLength(1);
  });

  it("a proposed policy that widens gitlab.scope examines only what the base scope governs: the merge request's author learns nothing beyond it", async () => {
    // A private project outside the base's scope, shared with a partner: none of the author's business.
    const secret = sim.createProject(7, "secret-deal");
    secret.shared_with_groups.push({ group_id: 5, group_name: "x", group_full_path: "partners/x", group_access_level: 30, expires_at: null });
    const widened = { "listed beside acme": PROPOSED.replace("scope: { groups: [acme] }", "scope: { groups: [acme, strangers] }"), "no scope at all": PROPOSED.replace("  scope: { groups: [acme] }\n", "") };
    for (const [how, text] of Object.entries(widened)) {
      writeFileSync(join(checkout, "widened.yaml"), text);
      const run = await warden(["enforce", "--policy", join(checkout, "widened.yaml"), "--policy-path", "policies/warden.yaml", "--compare-policy-ref", "main", "--format", "json"], env);
      const report = reportJson<EnforceReport>(run.stdout);
      expect(JSON.stringify(report), how).not.toContain("secret-deal");
      expect(names(report), how).toEqual(expected);
      expect(run.code, how).toBe(2);
      expect(report.warnings, how).toContainEqual(expect.stringMatching(/^the change alters gitlab\.scope \(base: acme; proposed: .*\): the base's scope was examined/));
    }
    // Moved wholly outside: the base's scope is still what is examined, and every share it removes
    // today is listed as no longer removed (out of the proposed scope); nothing outside it is read.
    writeFileSync(join(checkout, "widened.yaml"), PROPOSED.replace("scope: { groups: [acme] }", "scope: { groups: [strangers] }"));
    const moved = await warden(["enforce", "--policy", join(checkout, "widened.yaml"), "--policy-path", "policies/warden.yaml", "--compare-policy-ref", "main", "--format", "json"], env);
    const report = reportJson<EnforceReport>(moved.stdout);
    expect(JSON.stringify(report)).not.toContain("secret-deal");
    expect(names(report).newlyRemoved).toEqual([]);
    expect(names(report).noLongerRemoved.length).toBeGreaterThan(0);
    for (const action of report.comparison!.noLongerRemoved) expect(action.reason).toMatch(/^Leaves it out of scope \(the base policy removes it/);
  });
});
