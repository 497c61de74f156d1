/** The simulator's stored issues, users by name, commits with actions and merge requests (issue 30). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCESS, generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import type { GitLabSim, SimProject } from "../../sim/gitlab/index.ts";

const ADMIN = "glpat-sim-admin";
const TOKENS = { [ADMIN]: { admin: true }, "glpat-reporter": { admin: false, username: "rita" }, "glpat-guest": { admin: false, username: "gus" }, "glpat-dev": { admin: false, username: "dev" } };

let sim: GitLabSim;
let project: SimProject;
let main: string;

async function call(method: string, path: string, body?: unknown, token = ADMIN): Promise<{ status: number; json: any; link: string | null }> {
  const res = await fetch(`${sim.url}/api/v4${path}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json(), link: res.headers.get("link") };
}

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 3, seed: 7 }).dataset, tokens: TOKENS });
  project = sim.dataset.projects[0]!;
  project.members = { rita: ACCESS.reporter, gus: ACCESS.guest, dev: ACCESS.developer };
  main = sim.repositories.commit(project, { "warden.yaml": "# the policy\nversion: 1\n", "README.md": "hi\n" });
});
afterAll(() => sim.close());

const issues = () => `/projects/${project.id}/issues`;

describe("stored issues", () => {
  it("creates an issue with labels, assignees, due date; a guest may not (403)", async () => {
    await call("GET", "/user", undefined, "glpat-dev"); // the token's user becomes known, as any signed-in user is
    const dev = (await call("GET", "/users?username=DEV")).json[0];
    const made = await call("POST", issues(), { title: "Stray share", description: "why", labels: "warden::notice, access", assignee_ids: [dev.id], due_date: "2027-01-08", confidential: true }, "glpat-reporter");
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ iid: 4, project_id: project.id, title: "Stray share", description: "why", state: "opened", labels: ["warden::notice", "access"], due_date: "2027-01-08", confidential: true });
    expect(made.json.assignees).toEqual([{ id: dev.id, username: "dev", name: "dev" }]);
    expect(made.json.web_url).toBe(`${sim.url}/${project.path_with_namespace}/-/issues/4`);
    expect((await call("POST", issues(), { title: "x" }, "glpat-guest")).status).toBe(403);
    expect((await call("POST", issues(), { title: "x", due_date: "2027-02-30" })).status).toBe(400);
    expect((await call("GET", `${issues()}/4`)).json).toMatchObject({ iid: 4, title: "Stray share" });
    // The fixed, derived issues are still there for the tests that page their notes.
    expect((await call("GET", `${issues()}/1`)).json).toMatchObject({ iid: 1, state: "opened" });
  });

  it("a confidential issue is listed to reporters, its author and assignees, not to a guest", async () => {
    expect((await call("GET", `${issues()}?labels=access`, undefined, "glpat-dev")).json).toHaveLength(1);
    expect((await call("GET", `${issues()}?labels=access`, undefined, "glpat-guest")).json).toEqual([]);
  });

  it("updates state, due date, description and labels; takes notes", async () => {
    const put = await call("PUT", `${issues()}/4`, { state_event: "close", due_date: "2027-02-01", add_labels: "later,access" });
    expect(put.json).toMatchObject({ state: "closed", due_date: "2027-02-01", labels: ["warden::notice", "access", "later"] });
    expect(put.json.closed_at).not.toBeNull();
    expect((await call("PUT", `${issues()}/4`, { state_event: "reopen", description: "new" })).json).toMatchObject({ state: "opened", description: "new", closed_at: null });
    expect((await call("PUT", `${issues()}/4`, { state_event: "shut" })).status).toBe(400);
    const note = await call("POST", `${issues()}/4/notes`, { body: "Removed." }, "glpat-guest");
    expect(note.status).toBe(404); // the guest cannot see the confidential issue
    const byDev = await call("POST", `${issues()}/4/notes`, { body: "Removed." }, "glpat-dev");
    expect(byDev.status).toBe(201);
    expect(byDev.json).toMatchObject({ body: "Removed.", noteable_type: "Issue", noteable_iid: 4, author: { username: "dev" } });
    expect((await call("PUT", `${issues()}/99`, { state_event: "close" })).status).toBe(404);
  });

  it("lists an issue's notes newest first (sort=asc oldest first), not to a guest of a confidential one; a bad sort is a 400", async () => {
    await call("POST", `${issues()}/4/notes`, { body: "Second." });
    expect((await call("GET", `${issues()}/4/notes`)).json.map((n: { body: string }) => n.body)).toEqual(["Second.", "Removed."]);
    expect((await call("GET", `${issues()}/4/notes?sort=asc`)).json.map((n: { body: string }) => n.body)).toEqual(["Removed.", "Second."]);
    expect((await call("GET", `${issues()}/4/notes`, undefined, "glpat-guest")).status).toBe(404);
    expect((await call("GET", `${issues()}/4/notes?sort=up`)).status).toBe(400);
  });

  it("lists by labels (all of them) and state, by offset Link pages and by keyset on created_at and updated_at", async () => {
    for (let i = 0; i < 7; i++) await call("POST", issues(), { title: `n${i}`, labels: i % 2 ? "warden::notice" : "warden::notice,team" });
    await call("PUT", `${issues()}/6`, { state_event: "close" });
    const all = async (first: string) => {
      const seen: string[] = [];
      for (let url: string | undefined = first, pages = 0; url && pages < 20; pages++) {
        const res = await fetch(url, { headers: { "PRIVATE-TOKEN": ADMIN } });
        seen.push(...((await res.json()) as { title: string }[]).map((i) => i.title));
        url = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
      }
      return seen;
    };
    const base = `${sim.url}/api/v4${issues()}`;
    const offset = await all(`${base}?labels=warden::notice,team&state=opened&per_page=2&sort=asc`);
    expect(offset).toEqual(["n0", "n2", "n4", "n6"]);
    const keyset = await all(`${base}?labels=warden::notice&state=opened&pagination=keyset&order_by=created_at&sort=asc&per_page=2`);
    expect(keyset).toEqual(["Stray share", "n0", "n2", "n3", "n4", "n5", "n6"]); // n1 (iid 6) is closed
    await call("PUT", `${issues()}/5`, { description: "touched" }); // n0 (iid 5) is now the latest updated
    const byUpdate = await all(`${base}?labels=warden::notice&state=opened&pagination=keyset&order_by=updated_at&sort=desc&per_page=3`);
    expect(byUpdate[0]).toBe("n0");
    expect(byUpdate).toHaveLength(7);
    expect((await call("GET", `${issues()}?order_by=weight`)).status).toBe(400);
  });

  it("a guest may close an issue assigned to them, not another; closed_by names who closed it, null again once reopened", async () => {
    await call("GET", "/user", undefined, "glpat-guest");
    const gus = (await call("GET", "/users?username=gus")).json[0];
    const theirs = (await call("POST", issues(), { title: "theirs", labels: "warden::notice", assignee_ids: [gus.id], confidential: true })).json;
    const other = (await call("POST", issues(), { title: "other", labels: "warden::notice" })).json;
    expect(theirs).toMatchObject({ closed_at: null, closed_by: null });
    expect((await call("PUT", `${issues()}/${other.iid}`, { state_event: "close" }, "glpat-guest")).status).toBe(403);
    const closed = await call("PUT", `${issues()}/${theirs.iid}`, { state_event: "close" }, "glpat-guest");
    expect(closed.status).toBe(200);
    expect(closed.json).toMatchObject({ state: "closed", closed_by: { id: gus.id, username: "gus" } });
    expect(closed.json.closed_at).toBe(closed.json.updated_at);
    expect((await call("GET", `${issues()}?state=closed&labels=warden::notice`)).json.find((i: { iid: number }) => i.iid === theirs.iid).closed_by.username).toBe("gus");
    expect((await call("PUT", `${issues()}/${theirs.iid}`, { state_event: "reopen" }, "glpat-guest")).json).toMatchObject({ state: "opened", closed_at: null, closed_by: null });
  });

  it("updated_after keeps the issues updated at or after a time; one that is no time is a 400", async () => {
    const listed = async (after: string) => ((await call("GET", `${issues()}?pagination=keyset&order_by=created_at&sort=asc&per_page=100&updated_after=${encodeURIComponent(after)}`)).json as { iid: number; updated_at: string }[]);
    const everything = await listed("2000-01-01T00:00:00Z");
    const last = everything.reduce((a, b) => (a.updated_at > b.updated_at ? a : b));
    expect((await listed(last.updated_at)).map((i) => i.iid)).toEqual([last.iid]);
    expect(await listed(new Date(Date.parse(last.updated_at) + 1).toISOString())).toEqual([]);
    expect(everything.length).toBeGreaterThan(5);
    expect((await call("GET", `${issues()}?updated_after=yesterday`)).status).toBe(400);
  });
});

describe("users by name", () => {
  it("finds a user by username, [] when none", async () => {
    expect((await call("GET", "/users?username=nobody-here")).json).toEqual([]);
  });
});

describe("commits with actions, and merge requests", () => {
  const commits = () => `/projects/${project.id}/repository/commits`;
  const file = async (path: string, ref: string) => (await call("GET", `/projects/${project.id}/repository/files/${encodeURIComponent(path)}?ref=${encodeURIComponent(ref)}`)).json;

  it("makes one commit on a new branch from start_branch, its parent the start's head", async () => {
    const before = await file("warden.yaml", "main");
    const made = await call("POST", commits(), { branch: "warden/x", start_branch: "main", commit_message: "Exempt x\n\nwhy", actions: [{ action: "update", file_path: "warden.yaml", content: "# the policy\nversion: 1\n# x\n", last_commit_id: before.last_commit_id }, { action: "create", file_path: "NEW.md", content: "n" }] }, "glpat-dev");
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ title: "Exempt x", parent_ids: [main] });
    expect(Buffer.from((await file("warden.yaml", "warden/x")).content, "base64").toString()).toBe("# the policy\nversion: 1\n# x\n");
    expect((await file("warden.yaml", "warden/x")).last_commit_id).toBe(made.json.id);
    expect((await file("warden.yaml", "main")).last_commit_id).toBe(main);
    expect(project.branches).toContain("warden/x");
  });

  it("refuses a stale last_commit_id, an existing branch with another start_branch, bad actions, and a reporter", async () => {
    const update = (last: string) => ({ action: "update", file_path: "README.md", content: "x", last_commit_id: last });
    const stale = await call("POST", commits(), { branch: "warden/y", start_branch: "main", commit_message: "m", actions: [update("0".repeat(40))] });
    expect(stale).toMatchObject({ status: 400, json: { message: "You are attempting to update a file that has changed since you started editing it." } });
    expect(project.branches).not.toContain("warden/y");
    const exists = await call("POST", commits(), { branch: "warden/x", start_branch: "main", commit_message: "m", actions: [update(main)] });
    expect(exists).toMatchObject({ status: 400, json: { message: "A branch called 'warden/x' already exists. Switch to that branch in order to make changes" } });
    expect((await call("POST", commits(), { branch: "warden/z", start_branch: "main", commit_message: "m", actions: [{ action: "create", file_path: "README.md", content: "x" }] })).status).toBe(400);
    expect((await call("POST", commits(), { branch: "warden/z", commit_message: "m", actions: [update(main)] })).status).toBe(400);
    expect((await call("POST", commits(), { branch: "warden/z", start_branch: "main", commit_message: "m", actions: [update(main)] }, "glpat-reporter")).status).toBe(403);
  });

  it("opens a merge request (201), and 409 while an open one has that source branch", async () => {
    const mrs = `/projects/${project.id}/merge_requests`;
    const made = await call("POST", mrs, { source_branch: "warden/x", target_branch: "main", title: "Exempt x", description: "d", remove_source_branch: true }, "glpat-dev");
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ iid: 1, state: "opened", source_branch: "warden/x", target_branch: "main", force_remove_source_branch: true, web_url: `${sim.url}/${project.path_with_namespace}/-/merge_requests/1` });
    expect((await call("POST", mrs, { source_branch: "warden/x", target_branch: "main", title: "again" })).status).toBe(409);
    expect((await call("POST", mrs, { source_branch: "nope", target_branch: "main", title: "t" })).status).toBe(400);
    expect((await call("POST", mrs, { source_branch: "warden/x", target_branch: "main", title: "t" }, "glpat-reporter")).status).toBe(403);
  });
});
