/**
 * `warden exempt --apply` / `/warden exempt` (lib/jobs/exempt), once its merge request is open, notes
 * each open notice of the share with "proposed in merge request <address>", written with the
 * administrator's token into a confidential issue whose reader is the share's adder, and the Slack reply
 * links the same address. The address GitLab answers (`web_url`) is a server's (or a proxy's) text: taken
 * unchecked, an answer rewritten in transit put a link of its choosing into every notice under Warden's
 * name. It is checked as a notice's own is (lib/jobs/notices/issue-url.ts: GitLab's origin, a merge
 * request of that iid), else built from the policy project and the iid; and an answer without one no
 * longer fails the request after the commit and the merge request were made.
 */
import { describe, expect, it } from "vitest";
import { loadGitLabPolicy, type PolicySettingNames } from "../../../lib/config/policy-source.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { exempt } from "../../../lib/jobs/exempt/index.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { NOTICES, noticesOf, run, sim, start, world } from "../../support/notices-world.ts";

const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
const POLICY_PROJECT = "security/policies";
const EVIL = "https://evil.example/approve-your-exemption";

async function setUp() {
  const dataset = world();
  dataset.projects.push({ id: 300, name: "policies", path: "policies", path_with_namespace: POLICY_PROJECT, namespace_id: 40, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
  await start(dataset);
  const repo = sim.dataset.projects.find((p) => p.id === 300)!;
  sim.repositories.commit(repo, { "warden.yaml": notifyPolicy() });
  await run({ apply: true });
  const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, maxRetries: 0 } });
  const base = await loadGitLabPolicy(gitlab, { project: POLICY_PROJECT, path: "warden.yaml" }, { names: NAMES });
  return { gitlab, base };
}

const request = { project: "acme/app", group: "partners", until: "2099-12-31", reason: "pen test" };
const notesOf = (iid: number) => sim.work.issuesOf(NOTICES).find((i) => i.iid === iid)!.notes.map((n) => n.body);

describe("exempt: the merge request's address, as a server answered it", { timeout: 30_000 }, () => {
  it("a web_url off GitLab's origin is not written into the notices as a link", async () => {
    const { gitlab, base } = await setUp();
    sim.addFaults({ kind: "rewrite", method: "POST", route: "POST /projects/:id/merge_requests", times: 1, edit: (body) => ({ ...(body as object), web_url: EVIL }) });
    const result = await exempt({ gitlab, base, refSetting: "REF", request, apply: true });
    const [notice] = noticesOf("project:100:group:20");
    expect(result.notices?.notices).toEqual([expect.objectContaining({ iid: notice!.iid, noted: true })]);
    // The note names the merge request, not the address the answer chose (evil.example, linked by GitLab's autolink filter).
    const notes = notesOf(notice!.iid).join("\n").replace(/\\(.)/g, "$1");
    expect(notes).toContain("merge request");
    expect(notes).not.toContain("evil.example");
  });

  it("an answer without web_url does not fail the request after the commit and the merge request were made", async () => {
    const { gitlab, base } = await setUp();
    sim.addFaults({ kind: "rewrite", method: "POST", route: "POST /projects/:id/merge_requests", times: 1, edit: (body) => ({ ...(body as object), web_url: undefined }) });
    const result = await exempt({ gitlab, base, refSetting: "REF", request, apply: true });
    expect(result.mergeRequest.iid).toBeGreaterThan(0);
  });
});
