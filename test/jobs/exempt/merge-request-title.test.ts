/**
 * `warden exempt` / `/warden exempt` (lib/jobs/exempt): the merge request's title names the exemption
 * ("Exempt project <path> shared with <group> until <date>"), and GitLab refuses a merge request title
 * over 255 characters (Issuable's validation, as for the notices' issue titles), while a project path is
 * up to 255 characters a part: a Maintainer names it. Sent whole, such a title was refused only after
 * the exemption was committed on its new branch: the requester (in Slack, who cannot open a merge
 * request from a branch) was told to do it by hand, and asking again was refused ("branch already
 * exists"). The title is cut to fit (request-text.ts mergeRequestTitle); the description names the
 * share in full. The simulator does not enforce the limit, so the test checks the title a dry run sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGitLabPolicy, type PolicySettingNames } from "../../../lib/config/policy-source.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { exempt, ExemptRefusedError, type ExemptRequest } from "../../../lib/jobs/exempt/index.ts";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../../sim/gitlab/index.ts";
import { BASE, compareWorld, POLICY_PROJECT } from "../../support/compare-world.ts";

const ADMIN = "glpat-sim-admin";
const PATH = "policies/warden.yaml";
const NAMES: PolicySettingNames = { project: "P", path: "PATH", ref: "REF", token: "TOKEN", allowUnprotected: "ALLOW=1" };
/** A project path part as long as GitLab allows less a little: 230 characters. */
const LONG = `payments-${"settlement-".repeat(20)}service`;
const LONG_PROJECT = `acme/app/${LONG}`;

let sim: GitLabSim;

beforeAll(async () => {
  const dataset = compareWorld();
  dataset.projects.push({
    id: 30, name: LONG, path: LONG, path_with_namespace: LONG_PROJECT, namespace_id: 2,
    shared_with_groups: [{ group_id: 5, group_name: "x", group_full_path: "partners/x", group_access_level: 30, expires_at: null }],
    default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
  } satisfies SimProject);
  sim = await startGitLabSim({ dataset, tokens: { [ADMIN]: { admin: true } } });
  const repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { [PATH]: BASE });
});
afterAll(() => sim?.close());

const client = () => new GitLabClient({ url: sim.url, token: ADMIN, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5, maxRetries: 0 } });

async function propose(request: ExemptRequest, apply = false) {
  const gitlab = client();
  const base = await loadGitLabPolicy(gitlab, { project: POLICY_PROJECT, path: PATH }, { names: NAMES });
  return exempt({ gitlab, base, refSetting: "REF", request, apply });
}

describe("exempt: an exemption for a project with a long path", () => {
  it("proposes a merge request whose title GitLab accepts (at most 255 characters), or refuses before anything is committed", async () => {
    expect(LONG.length).toBeLessThanOrEqual(255);
    const request = { project: LONG_PROJECT, group: "partners/x", until: "2099-12-31", reason: "pen test" };
    const outcome = await propose(request).then(
      (result) => ({ refused: false as const, titleChars: Array.from(result.mergeRequest.title).length }),
      (err: unknown) => {
        expect(err).toBeInstanceOf(ExemptRefusedError);
        return { refused: true as const, titleChars: 0 };
      },
    );
    // Either the title fits GitLab's limit, or the request is refused with nothing sent.
    expect(outcome.titleChars).toBeLessThanOrEqual(255);
  });
});
