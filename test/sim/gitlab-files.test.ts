import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCESS, generateOrganisation, startGitLabSim } from "../../sim/gitlab/index.ts";
import type { GitLabSim, SimProject } from "../../sim/gitlab/index.ts";

const ADMIN = "glpat-sim-admin";
const TOKENS = { [ADMIN]: { admin: true }, "glpat-reporter": { admin: false, username: "rita" }, "glpat-guest": { admin: false, username: "gus" }, "glpat-outsider": { admin: false, username: "olga" } };
const enc = encodeURIComponent;

let sim: GitLabSim;
let project: SimProject;
let main: string;
let release: string;

function get(path: string, token = ADMIN, method = "GET"): Promise<Response> {
  return fetch(`${sim.url}/api/v4${path}`, { method, headers: { "PRIVATE-TOKEN": token } });
}
const filePath = (file: string, ref?: string, id = enc(project.path_with_namespace)) =>
  `/projects/${id}/repository/files/${file}${ref === undefined ? "" : `?ref=${enc(ref)}`}`;
const gitBlobId = (text: string) => createHash("sha1").update(`blob ${Buffer.byteLength(text)}\0${text}`).digest("hex");

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 3, seed: 7 }).dataset, tokens: TOKENS });
  project = sim.dataset.projects[0]!;
  main = sim.repositories.commit(project, { "warden.yaml": "version: 1\n", "policies/prod/warden.yaml": "prod: 1\n" });
  release = sim.repositories.commit(project, { "policies/prod/warden.yaml": "prod: 2\n" }, "release/2026");
});
afterAll(() => sim.close());

describe("the GitLab simulator's repository files", () => {
  it("answers a file by encoded project path, file path and ref, as GitLab's JSON with base64 content", async () => {
    const res = await get(filePath(enc("policies/prod/warden.yaml"), "release/2026"));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      file_name: "warden.yaml",
      file_path: "policies/prod/warden.yaml",
      size: 8,
      encoding: "base64",
      content: Buffer.from("prod: 2\n").toString("base64"),
      content_sha256: createHash("sha256").update("prod: 2\n").digest("hex"),
      ref: "release/2026",
      blob_id: gitBlobId("prod: 2\n"),
      commit_id: release,
      last_commit_id: release,
      execute_filemode: false,
    });
    expect(res.headers.get("x-gitlab-commit-id")).toBe(release);
    expect(res.headers.get("x-gitlab-blob-id")).toBe(gitBlobId("prod: 2\n"));
  });

  it("a new branch starts from the default branch: unchanged files keep their blob and last commit", async () => {
    const body = (await (await get(filePath("warden.yaml", "release/2026"))).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ commit_id: release, last_commit_id: main, blob_id: gitBlobId("version: 1\n") });
  });

  it("resolves HEAD to the default branch and a commit id to that commit, echoing the ref as sent", async () => {
    const head = (await (await get(filePath(enc("policies/prod/warden.yaml"), "HEAD"))).json()) as Record<string, unknown>;
    expect(head).toMatchObject({ ref: "HEAD", commit_id: main, content: Buffer.from("prod: 1\n").toString("base64") });
    const byCommit = (await (await get(filePath(enc("policies/prod/warden.yaml"), release))).json()) as Record<string, unknown>;
    expect(byCommit).toMatchObject({ commit_id: release });
  });

  it("answers HEAD requests with the headers alone", async () => {
    const res = await get(filePath("warden.yaml", "main"), ADMIN, "HEAD");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gitlab-commit-id")).toBe(main);
    expect(await res.text()).toBe("");
  });

  it("answers GitLab's errors: an unencoded / is no route, an unknown ref or file or project is its 404, no ref a 400", async () => {
    const cases: [string, number, unknown][] = [
      [filePath("policies/prod/warden.yaml", "main"), 404, { message: "404 Not Found" }],
      [filePath("warden.yaml", "release/2026", project.path_with_namespace), 404, { message: "404 Not Found" }],
      [filePath("warden.yaml", "no-such-branch"), 404, { message: "404 Commit Not Found" }],
      [filePath("missing.yaml", "main"), 404, { message: "404 File Not Found" }],
      [filePath("warden.yaml", "main", enc("no/such-project")), 404, { message: "404 Project Not Found" }],
      [filePath("warden.yaml"), 400, { error: "ref is missing" }],
    ];
    for (const [path, status, body] of cases) {
      const res = await get(path);
      expect([res.status, await res.json()], path).toEqual([status, body]);
    }
  });

  it("hides a project with members from others (404), and refuses its files to a Guest (403)", async () => {
    project.members = { rita: ACCESS.reporter, gus: ACCESS.guest };
    try {
      expect((await get(filePath("warden.yaml", "main"), "glpat-reporter")).status).toBe(200);
      const guest = await get(filePath("warden.yaml", "main"), "glpat-guest");
      expect([guest.status, await guest.json()]).toEqual([403, { message: "403 Forbidden" }]);
      for (const path of [filePath("warden.yaml", "main"), `/projects/${enc(project.path_with_namespace)}`]) {
        const outsider = await get(path, "glpat-outsider");
        expect([outsider.status, await outsider.json()], path).toEqual([404, { message: "404 Project Not Found" }]);
      }
    } finally {
      delete project.members;
    }
  });

  it("the branch API names the committed head", async () => {
    const res = await get(`/projects/${project.id}/repository/branches/${enc("release/2026")}`);
    expect(((await res.json()) as { commit: { id: string } }).commit.id).toBe(release);
  });
});
