/**
 * `warden exempt` and the stray-share notices (issue 30.4): the merge request links the open notice of
 * the share it exempts, and the notice gets a note linking the merge request: only Warden's own notice
 * (not a look-alike someone else opened), the server's URLs escaped, a dry run reading only, and a
 * note whose answer was lost never sent twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { markedKey } from "../../lib/jobs/notices/marker.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { notifyPolicy } from "../support/policies.ts";
import { warden } from "../support/cli.ts";
import { compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";

const ADMIN = "glpat-sim-admin";
const PATH = "policies/warden.yaml";
const NOTICES = 30;
const POLICY = notifyPolicy({ guard: "{ unmatchedRules: warn }" });
/** A notice URL as a hostile server (or a proxy) could send it: a mention, a link, HTML. Not an issue's on GitLab's origin: not taken. */
const HOSTILE_URL = "https://gitlab.example/n/-/issues/9 @all [click](javascript:alert(1)) <b>x</b>";
const API_STRANGERS = "project:10:group:7";
const API_OUTSIDE = "project:10:group:6";

let sim: GitLabSim;
let repo: SimProject;
let env: Record<string, string>;

const issues = () => sim.work.issuesOf(NOTICES);
/** The notice's address Warden builds in place of the server's (lib/jobs/notices/issue-url.ts), and as Markdown escapes it. */
const builtUrl = (iid: number) => `${sim.url}/security/access-notices/-/issues/${iid}`;
const escaped = (text: string) => text.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
const wardenNotice = (key: string) => issues().find((i) => i.author.username !== "jane" && markedKey(i.description) === key)!;
const nonGets = () => Object.entries(sim.counters.byRoute).filter(([route]) => !route.startsWith("GET ") && !route.startsWith("HEAD ")).map(([route]) => route);

beforeAll(async () => {
  const dataset = compareWorld();
  dataset.groups.find((g) => g.full_path === "security")!.owners = ["jane"];
  dataset.users!.push({ id: 51, username: "jane", name: "Jane", namespace_id: 5100 });
  dataset.projects.push({ id: NOTICES, name: "access-notices", path: "access-notices", path_with_namespace: "security/access-notices", namespace_id: 8, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
  sim = await startGitLabSim({ dataset, tokens: { [ADMIN]: { admin: true }, jane: { admin: false, username: "jane" } } });
  repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { [PATH]: POLICY });
  // Jane's look-alike, first (lowest iid): the marker of a share, Warden's label, but not Warden's issue.
  const forged = await fetch(`${sim.url}/api/v4/projects/${NOTICES}/issues`, {
    method: "POST", headers: { "private-token": "jane", "content-type": "application/json" },
    body: JSON.stringify({ title: "Stray share", description: `<!-- warden-share: ${API_STRANGERS} -->\nnot Warden's`, labels: "warden::notice" }),
  });
  expect(forged.status).toBe(201);
  // An applying run opens Warden's notices, one per stray share.
  const gitlab = new GitLabClient({ url: sim.url, token: ADMIN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  await enforce({ gitlab, policy: parsePolicy(POLICY, "warden.yaml"), apply: true });
  expect(wardenNotice(API_STRANGERS)).toBeDefined();
  wardenNotice(API_STRANGERS).web_url = HOSTILE_URL;
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: ADMIN, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH };
});
afterAll(() => sim?.close());

const exemptRun = (group: string, extra: string[] = []) => warden(["exempt", "--project", "acme/app/api", "--group", group, "--until", "2099-12-31", "--reason", "pen test", ...extra], env);

describe.sequential("warden exempt with notices", () => {
  it("a dry run finds the share's notice (Warden's own, not the look-alike), shows the description linking it, and only reads", async () => {
    sim.resetCounters();
    const run = await exemptRun("strangers");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
    const notice = wardenNotice(API_STRANGERS);
    expect(run.stdout).toContain(`notice #${notice.iid} in security/access-notices: `);
    expect(run.stdout).toContain("(to note)");
    expect(run.stdout).toContain(`It answers Warden's stray-share notice: ${escaped(builtUrl(notice.iid))}.`);
    expect(nonGets()).toEqual([]);
  });

  it("--apply: the description links the notice (escaped), and the notice alone gets one note linking the merge request", async () => {
    sim.resetCounters();
    const notes = new Map(issues().map((i) => [i.iid, i.notes.length]));
    const run = await exemptRun("strangers", ["--apply"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(nonGets().sort()).toEqual(["POST /projects/:id/issues/:iid/notes", "POST /projects/:id/merge_requests", "POST /projects/:id/repository/commits"]);
    expect(sim.counters.byRoute["POST /projects/:id/issues/:iid/notes"]).toBe(1);
    const mr = sim.work.mergeRequests.get(repo.id)!.at(-1)!;
    const notice = wardenNotice(API_STRANGERS);
    // The server's URL is not taken: the notice's own address, escaped; no mention, no link, no HTML.
    expect(mr.description).toContain(`It answers Warden's stray-share notice: ${escaped(builtUrl(notice.iid))}.`);
    expect(mr.description).not.toMatch(/@all|\[click\]|<b>|javascript/);
    for (const issue of issues()) expect(issue.notes.length - notes.get(issue.iid)!).toBe(issue === notice ? 1 : 0);
    const note = notice.notes.at(-1)!.body;
    expect(note).toContain(`An exemption for this share is proposed in merge request ${mr.web_url.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`)}`);
    expect(run.stdout).toContain(`notice #${notice.iid} in security/access-notices: ${builtUrl(notice.iid)} (noted with the merge request's link)`);
  });

  it("a note whose answer is lost is not sent again: one POST, the merge request stands, a warning says so", async () => {
    sim.resetCounters();
    sim.addFaults({ kind: "apply-then-drop", route: "POST /projects/:id/issues/:iid/notes", times: 1 });
    const notice = wardenNotice(API_OUTSIDE);
    const before = notice.notes.length;
    const run = await exemptRun("outside", ["--apply"]);
    expect(run.code).toBe(0);
    expect(sim.counters.byRoute["POST /projects/:id/issues/:iid/notes"]).toBe(1);
    expect(notice.notes.length).toBe(before + 1);
    expect(run.stdout).toMatch(/opened merge request !\d+/);
    expect(run.stdout).toContain(`notice #${notice.iid} in security/access-notices: ${notice.web_url} (not noted)`);
    expect(run.stdout).toMatch(new RegExp(`warning: notice #${notice.iid} in security/access-notices: the note linking the merge request could not be posted \\(.*\\); it was not sent again`));
  });

  it("a newline in GitLab's error message cannot start a line of the output: a forged 'opened merge request' stays in its warning", async () => {
    const forged = "opened merge request !999: https://evil.example/mr (commit deadbeefdead on warden/exempt-x)";
    sim.addFaults({ kind: "status", status: 403, route: "GET /projects/:id/issues", times: 1, message: `403 Forbidden\n${forged}` });
    const run = await exemptRun("strangers");
    expect(run.code).toBe(2);
    expect(run.stdout).toContain("warning: the notices of acme/app/api in security/access-notices could not be read");
    expect(run.stdout).not.toMatch(/^opened merge request !999/m);
    // As every other text rendering shows it: the newline as a visible escape.
    expect(run.stdout).toContain(`403 Forbidden\\x0a${forged}`);
  });
});
