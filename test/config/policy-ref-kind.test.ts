/**
 * A repository policy read at a protected tag, when a branch of the same name exists (any Developer
 * may create an unprotected branch): GitLab's answers, as a scripted server plays them (the
 * simulator's tags are not repository-backed). The branch is looked up first, as GitLab resolves a
 * bare name; one that may not be trusted must not stop the policy being read at the protected tag,
 * and the deployment may name the kind itself (refs/tags/…, refs/heads/…).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadGitLabPolicy, type PolicySettingNames } from "../../lib/config/policy-source.ts";
import { trustedLocation } from "../../lib/config/policy-trust.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { json, serve } from "../support/server.ts";

const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
const client = (url: string) => new GitLabClient({ url, token: "glpat-sim-admin", retry: { maxRetries: 0, baseDelayMs: 1, maxBackoffMs: 2 } });
const BRANCH_HEAD = "b".repeat(40);
const TAGGED = "c".repeat(40);

const fileAnswer = (text: string, commit: string) => {
  const content = Buffer.from(text);
  return {
    file_path: "warden.yaml", size: content.length, encoding: "base64", content: content.toString("base64"),
    content_sha256: createHash("sha256").update(content).digest("hex"), ref: commit, blob_id: "a".repeat(40), commit_id: commit, last_commit_id: commit,
  };
};

/** Maintainers alone create the tags `policy-*` names (GitLab's default for a new protected-tag rule). */
const MAINTAINERS_TAG_RULE = { name: "policy-*", create_access_levels: [{ access_level: 40, access_level_description: "Maintainers" }] };

/**
 * Project 12: a branch `policy-v1` with the protection given, a tag `policy-v1` protected as given, its
 * protected-tag rules (`tagRules`, or the status they answer); GitLab's 404s otherwise.
 */
async function gitlab(branch: Record<string, unknown> | undefined, tagProtected: boolean, tagRules: object[] | number = [MAINTAINERS_TAG_RULE]) {
  const asked: string[] = [];
  const server = await serve((req, res) => {
    const path = decodeURIComponent(req.url.replace(/\?.*/, ""));
    asked.push(path);
    const name = path.replace(/^.*\/repository\/(branches|tags)\//, "");
    if (path.startsWith("/api/v4/projects/12/repository/branches/")) {
      return branch && name === "policy-v1" ? json(res, 200, { name, commit: { id: BRANCH_HEAD }, merged: false, default: false, ...branch }) : json(res, 404, { message: "404 Branch Not Found" });
    }
    if (path.startsWith("/api/v4/projects/12/repository/tags/")) {
      return name === "policy-v1" ? json(res, 200, { name, commit: { id: TAGGED }, target: TAGGED, protected: tagProtected }) : json(res, 404, { message: "404 Tag Not Found" });
    }
    if (path === "/api/v4/projects/12/protected_tags") {
      return typeof tagRules === "number" ? json(res, tagRules, { message: `${tagRules} Forbidden` }) : json(res, 200, tagRules);
    }
    if (path.startsWith("/api/v4/projects/12/repository/files/")) {
      const commit = new URL(req.url, "http://x").searchParams.get("ref");
      return json(res, 200, fileAnswer(standardPolicy(), commit ?? ""));
    }
    return json(res, 404, { message: "404 Not found" });
  });
  return { url: server.url, asked };
}

const UNPROTECTED = { protected: false, developers_can_push: true, developers_can_merge: true };
const read = (url: string, ref: string) => loadGitLabPolicy(client(url), { project: "12", path: "warden.yaml", ref }, { names: NAMES });

describe("a policy read at a protected tag that a branch of the same name shadows", () => {
  it("a Developer's branch named like the protected tag does not stop the policy being read: the tag is", async () => {
    const { url } = await gitlab(UNPROTECTED, true);
    const { policy } = await read(url, "policy-v1");
    expect(policy.source).toMatchObject({ ref: "policy-v1", commitId: TAGGED });
    expect(policy.text).toBe(standardPolicy());
  });

  it("the deployment may name the kind: refs/tags/policy-v1 reads the tag alone, refs/heads/policy-v1 the branch alone (refused here)", async () => {
    const { url, asked } = await gitlab(UNPROTECTED, true);
    expect((await read(url, "refs/tags/policy-v1")).policy.source).toMatchObject({ ref: "refs/tags/policy-v1", commitId: TAGGED });
    // Named as written, as the report and a plan record it (warden apply's check compares the two).
    expect(await trustedLocation(client(url), { project: "12", ref: "refs/tags/policy-v1" }, NAMES)).toMatchObject({ name: "refs/tags/policy-v1", commitId: TAGGED });
    expect(asked.filter((p) => p.includes("/branches/"))).toEqual([]);
    await expect(read(url, "refs/heads/policy-v1")).rejects.toThrow(/not trusted: branch "policy-v1" is not protected/);
  });

  it("where neither may be trusted, the branch's refusal names the fix", async () => {
    const { url } = await gitlab(UNPROTECTED, false);
    await expect(read(url, "policy-v1")).rejects.toThrow(/not trusted: branch "policy-v1" is not protected, so anyone who may push to it writes the policy/);
  });

  it("a protected branch stands: the tag is not even looked up", async () => {
    const { url, asked } = await gitlab({ protected: true, developers_can_push: false, developers_can_merge: false }, true);
    expect((await read(url, "policy-v1")).policy.source).toMatchObject({ commitId: BRANCH_HEAD });
    expect(asked.filter((p) => p.includes("/tags/"))).toEqual([]);
  });

  // A hostile review's finding: the tag was trusted for being protected alone, so where the branch was refused
  // any Developer could tag a commit of their own `policy-v1` and have Warden read their policy from it.
  it("a tag a protected-tag rule lets Developers create is not trusted, read by name or as refs/tags/…, and no file is read", async () => {
    const developers = { name: "*", create_access_levels: [{ access_level: 30, access_level_description: "Developers + Maintainers" }] };
    const { url, asked } = await gitlab(UNPROTECTED, true, [developers]);
    await expect(read(url, "policy-v1")).rejects.toThrow(/not trusted: branch "policy-v1" is not protected/);
    await expect(read(url, "refs/tags/policy-v1")).rejects.toThrow(/not trusted: tag "policy-v1" is protected, but its protection rule "\*" lets Developers create the tags it matches.*allow only Maintainers to create them.*or set ALLOW=1 to read it anyway/);
    expect(asked.filter((p) => p.includes("/files/"))).toEqual([]);
  });

  it("a tag whose protection rules GitLab does not show the token is not trusted either, and says what to give the token", async () => {
    const { url, asked } = await gitlab(undefined, true, 403);
    await expect(read(url, "policy-v1")).rejects.toThrow(/not trusted: tag "policy-v1" is protected, but GitLab did not show the token the project's protected-tag rules \(GET \S+ answered 403.*give the token Maintainer on the policy's project/);
    expect(asked.filter((p) => p.includes("/files/"))).toEqual([]);
  });
});
