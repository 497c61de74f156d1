/** lib/gitlab's issue, user, commit and merge request calls against the simulator (issue 30). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommit, createIssue, createIssueNote, createMergeRequest, GitLabClient, HttpError, listIssues, readRepositoryFile, updateIssue, userByUsername } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";

let sim: GitLabSim;
let project: SimProject;
const client = () => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 3, seed: 7 }).dataset, recordRequests: true });
  project = sim.dataset.projects[0]!;
  sim.repositories.commit(project, { "warden.yaml": "version: 1\n" });
});
afterAll(() => sim.close());

describe("issues", () => {
  it("creates, lists by label through keyset pages (one POST each, nothing repeated), updates and notes", async () => {
    const gitlab = client();
    const me = await userByUsername(gitlab, (await gitlab.currentUser()).username);
    expect(me).toBeDefined();
    expect(await userByUsername(gitlab, "no-such-user")).toBeUndefined();
    for (let i = 0; i < 5; i++) await createIssue(gitlab, project.id, { title: `t${i}`, labels: ["warden::notice", ...(i < 3 ? ["x"] : [])], assigneeIds: [me!.id], dueDate: "2027-01-0" + (i + 1) });
    const titles: string[] = [];
    for await (const issue of listIssues(gitlab, project.path_with_namespace, { labels: ["warden::notice", "x"], state: "opened" })) titles.push(issue.title);
    expect(titles).toEqual(["t0", "t1", "t2"]);
    const listed = sim.requests.filter((r) => r.url.includes("/issues?") && r.method === "GET");
    expect(listed.length).toBe(1); // 100 a page: one page for up to 100 open notices
    expect(listed.every((r) => r.url.includes("pagination=keyset") && r.url.includes("order_by=created_at"))).toBe(true);
    expect(sim.requests.filter((r) => r.method === "POST")).toHaveLength(5);
    const closed = await updateIssue(gitlab, project.id, 4, { stateEvent: "close", dueDate: "2027-03-01", addLabels: ["done"] });
    expect(closed).toMatchObject({ state: "closed", due_date: "2027-03-01" });
    expect(closed.labels).toContain("done");
    expect((await createIssueNote(gitlab, project.id, 4, "Closed: the share is gone.")).body).toBe("Closed: the share is gone.");
  });
});

describe("a commit with actions and a merge request", () => {
  it("commits on a new branch with last_commit_id, refuses a stale one cleanly, and opens one merge request", async () => {
    const gitlab = client();
    const file = await readRepositoryFile(gitlab, { project: project.id, path: "warden.yaml", ref: "main", maxBytes: 10_000 });
    const commit = await createCommit(gitlab, project.id, { branch: "warden/a", startBranch: "main", message: "m", actions: [{ action: "update", filePath: "warden.yaml", content: "version: 1\n# a\n", lastCommitId: file.lastCommitId }] });
    expect(commit.parent_ids).toEqual([file.commitId]);
    const stale = createCommit(gitlab, project.id, { branch: "warden/b", startBranch: "main", message: "m", actions: [{ action: "update", filePath: "warden.yaml", content: "x", lastCommitId: "0".repeat(40) }] });
    await expect(stale).rejects.toBeInstanceOf(HttpError);
    const mr = await createMergeRequest(gitlab, project.id, { sourceBranch: "warden/a", targetBranch: "main", title: "t", description: "d", removeSourceBranch: true });
    expect(mr).toMatchObject({ iid: 1, source_branch: "warden/a" });
    await expect(createMergeRequest(gitlab, project.id, { sourceBranch: "warden/a", targetBranch: "main", title: "t" })).rejects.toMatchObject({ status: 409 });
  });
});
