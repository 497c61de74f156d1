/** The GitLab simulator's merge requests and their notes (sim/gitlab/notes.ts), over a socket. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCESS, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { compareWorld, MR_IID, POLICY_PROJECT } from "../support/compare-world.ts";

const ADMIN = "glpat-sim-admin";
const TOKENS = { [ADMIN]: { admin: true }, "glpat-bot": { admin: false, username: "bot" }, "glpat-mallory": { admin: false, username: "mallory" }, "glpat-maint": { admin: false, username: "maia" } };
const enc = encodeURIComponent;
const notesPath = (iid = MR_IID, project = enc(POLICY_PROJECT)) => `/projects/${project}/merge_requests/${iid}/notes`;

let sim: GitLabSim;
beforeAll(async () => {
  sim = await startGitLabSim({ dataset: compareWorld(), tokens: TOKENS });
  sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!.members = { bot: ACCESS.reporter, mallory: ACCESS.developer, maia: ACCESS.maintainer };
});
afterAll(() => sim.close());

function call(method: string, path: string, token = ADMIN, body?: unknown): Promise<Response> {
  return fetch(`${sim.url}/api/v4${path}`, {
    method,
    headers: { "PRIVATE-TOKEN": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe.sequential("the GitLab simulator's merge request notes", () => {
  it("POST answers 201 with the note, authored by the token's user; the list pages newest first, or oldest with sort=asc", async () => {
    const ids: number[] = [];
    for (let n = 1; n <= 5; n++) {
      const res = await call("POST", notesPath(), "glpat-bot", { body: `note ${n}` });
      expect(res.status).toBe(201);
      const note = (await res.json()) as { id: number; body: string; author: { username: string }; system: boolean };
      expect(note).toMatchObject({ body: `note ${n}`, author: { username: "bot" }, system: false });
      ids.push(note.id);
    }
    const first = await call("GET", `${notesPath()}?per_page=2`);
    expect(first.headers.get("x-next-page")).toBe("2");
    expect(((await first.json()) as { id: number }[]).map((n) => n.id)).toEqual([ids[4], ids[3]]);
    const asc = await call("GET", `${notesPath()}?sort=asc&per_page=100`);
    expect(((await asc.json()) as { id: number }[]).map((n) => n.id)).toEqual(ids);
    expect((await call("GET", `${notesPath()}?sort=sideways`)).status).toBe(400);
  });

  it("PUT edits a note for its author or a Maintainer, refuses anyone else (403), and answers 404 for an unknown merge request or note", async () => {
    const planted = sim.notes.add(sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!.id, MR_IID, { id: 50, username: "mallory" }, "mine");
    const path = `${notesPath()}/${planted.id}`;
    expect((await call("PUT", path, "glpat-bot", { body: "taken over" })).status).toBe(403);
    expect(planted.body).toBe("mine");
    const own = await call("PUT", path, "glpat-mallory", { body: "edited" });
    expect(own.status).toBe(200);
    expect(planted.body).toBe("edited");
    expect(planted.updated_at > planted.created_at).toBe(true);
    expect((await call("PUT", path, "glpat-maint", { body: "moderated" })).status).toBe(200);
    expect((await call("PUT", `${notesPath()}/999999`, "glpat-mallory", { body: "x" })).status).toBe(404);
    expect((await call("GET", notesPath(8))).status).toBe(404);
    expect((await call("POST", notesPath(8), ADMIN, { body: "x" })).status).toBe(404);
    expect((await call("GET", notesPath(MR_IID, enc("acme/app/api")))).status).toBe(404);
  });

  it("refuses an empty body and one over GitLab's 1,000,000 characters (400)", async () => {
    expect((await call("POST", notesPath(), ADMIN, { body: "" })).status).toBe(400);
    expect((await call("POST", notesPath(), ADMIN, { body: "x".repeat(1_000_001) })).status).toBe(400);
    expect((await call("POST", notesPath(), ADMIN, { body: "x".repeat(1_000_000) })).status).toBe(201);
  });
});
