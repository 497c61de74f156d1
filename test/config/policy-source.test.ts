/** lib/config/policy-source.ts: the policy from a GitLab repository file fails closed, whatever goes wrong. */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_POLICY_BYTES } from "../../lib/policy/index.ts";
import { loadGitLabPolicy, type PolicySettingNames } from "../../lib/config/policy-source.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { json, serve } from "../support/server.ts";

const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
const FILES = "/projects/:id/repository/files/:file_path";
const BRANCH = "/projects/:id/repository/branches/:branch";

let sim: GitLabSim;
let repo: SimProject;
// Two retries, no waiting to speak of: what "after retries" means, quickly.
const client = (url: string) => new GitLabClient({ url, token: "glpat-sim-admin", retry: { maxRetries: 2, baseDelayMs: 1, maxBackoffMs: 2 } });

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 3, seed: 5 }).dataset });
  repo = sim.dataset.projects[0]!;
  sim.repositories.commit(repo, { "warden.yaml": standardPolicy() });
});
afterAll(() => sim.close());

const at = () => ({ project: repo.path_with_namespace, path: "warden.yaml" });

describe("loadGitLabPolicy", () => {
  it("records the exact source: project, path, default branch, commit and SHA-256", async () => {
    const { policy, blobId } = await loadGitLabPolicy(client(sim.url), at(), { names: NAMES });
    const head = sim.repositories.resolve(repo, "main")!;
    expect(policy.source).toEqual({
      source: "gitlab", project: repo.path_with_namespace, projectId: repo.id, path: "warden.yaml", ref: repo.default_branch, commitId: head.id,
      sha256: createHash("sha256").update(standardPolicy()).digest("hex"),
    });
    expect(blobId).toBe(head.files.get("warden.yaml")!.blobId);
  });

  it("with the previous read: its parse reused for the same blob, the commit moved on; by path, three requests", async () => {
    const gitlab = client(sim.url);
    const first = await loadGitLabPolicy(gitlab, at(), { names: NAMES });
    const other = sim.repositories.commit(repo, { "README.md": "unrelated\n" });
    sim.resetCounters();
    const second = await loadGitLabPolicy(gitlab, at(), { names: NAMES, previous: first });
    // The path resolved again (is it still this project?), the branch's protection and commit, the file at that commit.
    expect(sim.counters.byRoute).toEqual({ "GET /projects/:id": 1, [`GET ${BRANCH}`]: 1, [`GET ${FILES}`]: 1 });
    expect(second.policy.source).toMatchObject({ commitId: other, ref: "main", sha256: first.policy.source.sha256 });
    expect(second.policy.gitlab).toBe(first.policy.gitlab);
  });

  it("5xx past the retries, or a dropped connection past them, fails naming the cause; no other policy", async () => {
    // Each is retried twice (the file is read after GitLab has answered this client, so a dropped connection is retried as a 503 is).
    for (const [fault, times] of [[{ kind: "status", status: 503 }, 3], [{ kind: "drop" }, 3]] as const) {
      sim.addFaults({ ...fault, route: FILES, times });
      await expect(loadGitLabPolicy(client(sim.url), at(), { names: NAMES })).rejects.toThrow(
        new RegExp(`^policy warden\\.yaml in GitLab project ${repo.path_with_namespace.replaceAll(".", "\\.")} at the default branch: cannot be read: GitLab (failed|could not be reached) .*retries included: run again once it answers; nothing was run, and no other policy is used in its place$`),
      );
      expect(sim.pendingFaults()).toBe(0);
    }
  });

  it("refuses an answer that is not a usable file: bad base64, a size past the limit, a content_sha256 that does not match, ids missing", async () => {
    const content = Buffer.from(standardPolicy());
    const good = { file_path: "warden.yaml", size: content.length, encoding: "base64", content: content.toString("base64"), content_sha256: createHash("sha256").update(content).digest("hex"), ref: "main", blob_id: "a".repeat(40), commit_id: "b".repeat(40), last_commit_id: "c".repeat(40) };
    const cases: [object, RegExp][] = [
      [{ content: "not base64!" }, /content is not valid base64/],
      [{ size: MAX_POLICY_BYTES + 1 }, new RegExp(`the file is ${MAX_POLICY_BYTES + 1} bytes, more than the limit`)],
      [{ content_sha256: "0".repeat(64) }, /does not match the answer's content_sha256/],
      [{ size: 3 }, /decodes to \d+ bytes, the answer says 3/],
      [{ commit_id: undefined }, /commit_id is not a git object id/],
      [{ encoding: "text" }, /no base64 content \(encoding "text"\)/],
      // A hostile answer's field is quoted cut (after redaction), not whole: the error goes into logs and a durable step's record.
      [{ encoding: "x".repeat(1_000_000) }, /no base64 content \(encoding "x{59}… \(more than \d+ more characters\)\)/],
    ];
    for (const [change, message] of cases) {
      const branch = { name: "main", commit: { id: "b".repeat(40) }, protected: true, default: true };
      const server = await serve((req, res) => json(res, 200, req.url.includes("/repository/files/") ? { ...good, ...change } : branch));
      await expect(loadGitLabPolicy(client(server.url), { ...at(), project: "12", ref: "main" }, { names: NAMES }), JSON.stringify(change).slice(0, 200)).rejects.toThrow(message);
    }
  });

  it("a file that is not UTF-8 is refused as such", async () => {
    sim.repositories.commit(repo, { "binary.yaml": Buffer.from([0xff, 0xfe, 0x00]) });
    await expect(loadGitLabPolicy(client(sim.url), { ...at(), path: "binary.yaml" }, { names: NAMES })).rejects.toThrow(/binary\.yaml .*: is not UTF-8 text/);
  });
});

/** Issue 28 point 7: the policy project is pinned by id, and the ref read must be protected. */
describe("loadGitLabPolicy: whose policy it reads", () => {
  const PERMISSIVE = standardPolicy().replace('- group: "acme/**"', '- group: "**"');
  /** A policy project of its own, in the first project's group, with the standard policy on main. */
  const policyProject = (path: string) => {
    const project = sim.createProject(repo.namespace_id, path);
    sim.repositories.commit(project, { "warden.yaml": standardPolicy() });
    return project;
  };
  /** The attack: the project renamed, and a project created at its old path holding a permissive policy. */
  const takeOver = (project: SimProject) => {
    const old = project.path;
    sim.renameProject(project.id, `${old}-archived`);
    const impostor = sim.createProject(repo.namespace_id, old);
    sim.repositories.commit(impostor, { "warden.yaml": PERMISSIVE });
    return impostor;
  };
  const place = (project: SimProject | string, extra: object = {}) => ({ project: typeof project === "string" ? project : project.path_with_namespace, path: "warden.yaml", ...extra });

  it("a path that now redirects (the project renamed) is refused, naming the project's id as the fix", async () => {
    const project = policyProject("policy-renamed");
    const old = project.path_with_namespace;
    sim.renameProject(project.id, "policy-renamed-2");
    await expect(loadGitLabPolicy(client(sim.url), place(old), { names: NAMES })).rejects.toThrow(
      `policy warden.yaml in GitLab project ${old} at the default branch: not trusted: the project at ${old} has moved to "${project.path_with_namespace}", ` +
        `and GitLab gives an old path to the next project created there: set P to ${project.id}, the project's id, which never changes; nothing was run, and no other policy is used in its place`,
    );
  });

  it("a project created at the path after an earlier read pinned another is refused (warm process, durable run)", async () => {
    const project = policyProject("policy-pinned");
    const gitlab = client(sim.url);
    const first = await loadGitLabPolicy(gitlab, place(project), { names: NAMES });
    expect(first.policy.source).toMatchObject({ project: project.path_with_namespace, projectId: project.id });
    const old = project.path_with_namespace;
    const impostor = takeOver(project);
    const refusal = `policy warden.yaml in GitLab project ${old} at the default branch: not trusted: P ${old} was project ${project.id} when the policy was first read here, and is now project ${impostor.id}`;
    await expect(loadGitLabPolicy(gitlab, place(old), { names: NAMES, previous: first })).rejects.toThrow(refusal);
    // A durable run's later invocation passes the id its first one recorded.
    await expect(loadGitLabPolicy(gitlab, place(old, { ref: first.policy.source.source === "gitlab" ? first.policy.source.commitId : "" }), { names: NAMES, projectId: project.id })).rejects.toThrow(/is now project \d+/);
  });

  it("an id reads that project wherever it moves: the path's new project is never read", async () => {
    const project = policyProject("policy-by-id");
    const impostor = takeOver(project);
    const { policy } = await loadGitLabPolicy(client(sim.url), place(String(project.id)), { names: NAMES });
    expect(policy.text).toBe(standardPolicy());
    expect(policy.source).toMatchObject({ project: String(project.id), projectId: project.id, ref: "main" });
    expect(impostor.id).not.toBe(project.id);
  });

  it("a branch that is not protected is refused, naming both fixes; the deployment's opt-out reads it", async () => {
    const project = policyProject("policy-unprotected");
    sim.repositories.commit(project, { "warden.yaml": PERMISSIVE }, "feature/x");
    const refusal =
      `policy warden.yaml in GitLab project ${project.id} at feature/x: not trusted: branch "feature/x" is not protected, so anyone who may push to it writes the policy: ` +
      "protect the branch in GitLab (Settings > Repository > Protected branches), or set ALLOW=1 to read it anyway; nothing was run, and no other policy is used in its place";
    await expect(loadGitLabPolicy(client(sim.url), place(String(project.id), { ref: "feature/x" }), { names: NAMES })).rejects.toThrow(refusal);
    const allowed = await loadGitLabPolicy(client(sim.url), place(String(project.id), { ref: "feature/x", allowUnprotectedRef: true }), { names: NAMES });
    expect(allowed.policy.text).toBe(PERMISSIVE);
    sim.protectedBranches.protect(project, "feature/*");
    expect((await loadGitLabPolicy(client(sim.url), place(String(project.id), { ref: "feature/x" }), { names: NAMES })).policy.source).toMatchObject({ ref: "feature/x" });
  });

  it("the default branch unprotected is refused as well", async () => {
    const project = policyProject("policy-default-unprotected");
    sim.protectedBranches.unprotect(project, "main");
    await expect(loadGitLabPolicy(client(sim.url), place(project), { names: NAMES })).rejects.toThrow(/at the default branch: not trusted: branch "main" is not protected/);
  });

  it("a protected branch Developers may push to is refused as well: every Developer of the policy project would write the policy", async () => {
    const project = policyProject("policy-developers-push");
    sim.protectedBranches.protect(project, "main", { developersCanPush: true });
    await expect(loadGitLabPolicy(client(sim.url), place(project), { names: NAMES })).rejects.toThrow(
      `policy warden.yaml in GitLab project ${project.path_with_namespace} at the default branch: not trusted: branch "main" is protected, but Developers may push to it, so every Developer of the project writes the policy: ` +
        "allow only Maintainers to push to it and merge into it in GitLab (Settings > Repository > Protected branches), or set ALLOW=1 to read it anyway; nothing was run, and no other policy is used in its place",
    );
    const allowed = await loadGitLabPolicy(client(sim.url), place(project, { allowUnprotectedRef: true }), { names: NAMES });
    expect(allowed.policy.text).toBe(standardPolicy());
  });

  it("so is one Developers may merge into (GitLab's default protection): each can merge a merge request of their own that rewrites the policy", async () => {
    const project = policyProject("policy-developers-merge");
    sim.protectedBranches.protect(project, "main", { developersCanMerge: true });
    await expect(loadGitLabPolicy(client(sim.url), place(project), { names: NAMES })).rejects.toThrow(
      `not trusted: branch "main" is protected, but Developers may merge into it, so every Developer of the project writes the policy: allow only Maintainers to push to it and merge into it`,
    );
    const allowed = await loadGitLabPolicy(client(sim.url), place(project, { allowUnprotectedRef: true }), { names: NAMES });
    expect(allowed.policy.text).toBe(standardPolicy());
  });

  it("reads the commit the protected branch points at, whatever is pushed meanwhile", async () => {
    const project = policyProject("policy-race");
    const protectedHead = sim.repositories.resolve(project, "main")!.id;
    // Between the branch's answer and the file request, someone pushes: the file is still read at the checked commit.
    const remove = sim.beforeAnswer((r) => {
      if (r.route === `GET ${FILES}`) sim.repositories.commit(project, { "warden.yaml": PERMISSIVE });
    });
    try {
      const { policy } = await loadGitLabPolicy(client(sim.url), place(String(project.id)), { names: NAMES });
      expect(policy.source).toMatchObject({ commitId: protectedHead });
      expect(policy.text).toBe(standardPolicy());
    } finally {
      remove();
    }
  });

  it("a tag is read when protected and refused when not (GitLab's tag answer says which)", async () => {
    const content = Buffer.from(standardPolicy());
    const file = { file_path: "warden.yaml", size: content.length, encoding: "base64", content: content.toString("base64"), ref: "x", blob_id: "a".repeat(40), commit_id: "b".repeat(40), last_commit_id: "b".repeat(40) };
    for (const tagProtected of [true, false]) {
      const asked: string[] = [];
      const server = await serve((req, res) => {
        asked.push(req.url.replace(/\?.*/, ""));
        if (req.url.includes("/repository/branches/")) return json(res, 404, { message: "404 Branch Not Found" });
        if (req.url.includes("/repository/tags/")) return json(res, 200, { name: "v2.0", commit: { id: "b".repeat(40) }, protected: tagProtected });
        if (req.url.includes("/protected_tags")) return json(res, 200, [{ name: "v*", create_access_levels: [{ access_level: 40 }] }]);
        return json(res, 200, file);
      });
      const read = loadGitLabPolicy(client(server.url), { project: "12", path: "warden.yaml", ref: "v2.0" }, { names: NAMES });
      if (tagProtected) {
        expect((await read).policy.source).toMatchObject({ ref: "v2.0", commitId: "b".repeat(40) });
        // The tag's rules too: one that let Developers create it would make it no one's to trust.
        expect(asked).toEqual(["/api/v4/projects/12/repository/branches/v2.0", "/api/v4/projects/12/repository/tags/v2.0", "/api/v4/projects/12/protected_tags", "/api/v4/projects/12/repository/files/warden.yaml"]);
      } else {
        await expect(read).rejects.toThrow(/not trusted: tag "v2\.0" is not protected, .*protect the tag in GitLab \(Settings > Repository > Protected tags\), or set ALLOW=1/);
      }
    }
  });

  it("costs: by id, two requests a read (branch, file); the first read of the default branch three; a commit one", async () => {
    const project = policyProject("policy-cost");
    const gitlab = client(sim.url);
    const cost = async (extra: object, previous?: Awaited<ReturnType<typeof loadGitLabPolicy>>) => {
      sim.resetCounters();
      const read = await loadGitLabPolicy(gitlab, place(String(project.id), extra), { names: NAMES, ...(previous ? { previous } : {}) });
      return { read, requests: sim.counters.requests };
    };
    const first = await cost({});
    expect(first.requests).toBe(3);
    expect((await cost({}, first.read)).requests).toBe(2);
    expect((await cost({ ref: "main" })).requests).toBe(2);
    expect((await cost({ ref: sim.repositories.resolve(project, "main")!.id })).requests).toBe(1);
  });
});
