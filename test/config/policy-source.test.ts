/** lib/config/policy-source.ts: the policy from a GitLab repository file fails closed, whatever goes wrong. */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_POLICY_BYTES } from "../../lib/config/policy-file.ts";
import { loadGitLabPolicy, type PolicySettingNames } from "../../lib/config/policy-source.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { json, scriptedServers } from "../support/server.ts";

const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN" };
const FILES = "/projects/:id/repository/files/:file_path";

let sim: GitLabSim;
let repo: SimProject;
const serve = scriptedServers();
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
      source: "gitlab", project: repo.path_with_namespace, path: "warden.yaml", ref: repo.default_branch, commitId: head.id,
      sha256: createHash("sha256").update(standardPolicy()).digest("hex"),
    });
    expect(blobId).toBe(head.files.get("warden.yaml")!.blobId);
  });

  it("with the previous read: one request, its parse reused for the same blob, the commit moved on", async () => {
    const gitlab = client(sim.url);
    const first = await loadGitLabPolicy(gitlab, at(), { names: NAMES });
    const other = sim.repositories.commit(repo, { "README.md": "unrelated\n" });
    sim.resetCounters();
    const second = await loadGitLabPolicy(gitlab, at(), { names: NAMES, previous: first });
    expect(sim.counters.byRoute).toEqual({ [`GET ${FILES}`]: 1 });
    expect(second.policy.source).toMatchObject({ commitId: other, ref: "main", sha256: first.policy.source.sha256 });
    expect(second.policy.gitlab).toBe(first.policy.gitlab);
  });

  it("5xx past the retries, or a dropped connection past them, fails naming the cause; no other policy", async () => {
    // A 503 is retried twice; a connection dropped before GitLab ever answered this client, once.
    for (const [fault, times] of [[{ kind: "status", status: 503 }, 3], [{ kind: "drop" }, 2]] as const) {
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
    ];
    for (const [change, message] of cases) {
      const server = await serve((req, res) => json(res, 200, req.url.includes("/repository/files/") ? { ...good, ...change } : { default_branch: "main" }));
      await expect(loadGitLabPolicy(client(server.url), { ...at(), ref: "main" }, { names: NAMES }), JSON.stringify(change)).rejects.toThrow(message);
    }
  });

  it("a file that is not UTF-8 is refused as such", async () => {
    sim.repositories.commit(repo, { "binary.yaml": Buffer.from([0xff, 0xfe, 0x00]) });
    await expect(loadGitLabPolicy(client(sim.url), { ...at(), path: "binary.yaml" }, { names: NAMES })).rejects.toThrow(/binary\.yaml .*: is not UTF-8 text/);
  });
});
