/**
 * A proxy in front of GitLab that passes only standard response headers (an allowlist, as some API
 * gateways are set up), dropping `Link` and the `X-*` paging headers. GitLab's offset listings always
 * carry a `Link` (rel="first" at the least; docs/api-contract.md). A full offset page without one, or
 * X-Next-Page, was taken for the last page: each listing ended after its first page, and the run said it
 * was complete (765 of 3,000 projects judged; a hostile review's finding). It is a PagingError now
 * (lib/paging/gitlab.ts), so the listing is named as not examined. A keyset page may end a listing
 * full and without Link (GitLab looks one item ahead), so a full first page without one is checked by
 * asking for it again one item long: GitLab sends a Link there unless something drops it.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { validated } from "../support/report.ts";
import { gitlabClient, startProxy, type Proxy } from "../support/spec.ts";

let sim: GitLabSim | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
  proxy = sim = undefined;
});

const PAGING = ["link", "x-next-page", "x-prev-page", "x-page", "x-per-page", "x-total", "x-total-pages", "x-next-cursor", "x-prev-cursor"];

it("behind a proxy that drops Link and the X-* paging headers, a run does not report every project examined and in policy after reading only each listing's first page", async () => {
  const { dataset } = generateOrganisation({ projects: 3_000, seed: 3, tree: { groups: 40, maxDepth: 4, heavy: 0.8 } });
  sim = await startGitLabSim({ dataset });
  proxy = await startProxy({ target: sim.url, rewrite: (headers) => PAGING.forEach((name) => delete headers[name]) });
  const gitlab = new GitLabClient({ url: proxy.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const outcome = await validated(enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml") })).then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  expect(outcome.error).toBeUndefined();
  const { summary, unexamined = [] } = outcome.report!;
  expect(summary.complete, "a listing whose pages carry no Link cannot be known complete").toBe(false);
  expect(unexamined.map((part) => part.error)).toContainEqual(expect.stringContaining("the page came without GitLab's paging headers (no Link, no X-Next-Page"));
});

/** The standard policy without a scope: the whole instance, listed by keyset on /projects. */
const WHOLE_INSTANCE = standardPolicy().replace("  scope: { groups: [acme] }\n", "");

it("a whole-instance run (no scope: keyset on /projects) behind a proxy that drops Link does not report itself complete after each listing's first full page", async () => {
  const { dataset } = generateOrganisation({ projects: 1_500, seed: 3, tree: { groups: 30, maxDepth: 4, heavy: 0.8 } });
  sim = await startGitLabSim({ dataset });
  proxy = await startProxy({ target: sim.url, rewrite: (headers) => PAGING.forEach((name) => delete headers[name]) });
  // listConcurrency 2: 4 id ranges of ~400 projects, as the default 32 ranges are on an instance of 13,000 projects or more.
  const gitlab = new GitLabClient({ url: proxy.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const outcome = await validated(enforce({ gitlab, policy: parsePolicy(WHOLE_INSTANCE, "test.yaml"), listConcurrency: 2 })).then(
    (report) => ({ report, error: undefined }),
    (error: unknown) => ({ report: undefined, error }),
  );
  const projectsListed = proxy.requests.filter((r) => r.url.startsWith("/api/v4/projects?")).length;
  if (outcome.error) return; // refusing the run outright is safe too
  const { summary, unexamined = [] } = outcome.report!;
  // 1,500 projects; taken for the end, each id range's first page (100) was all that was read. Either every project is judged or the run says it is not complete.
  expect({ complete: summary.complete, projects: summary.complete ? summary.projects : 1_500, projectPagesRead: projectsListed }, "a full keyset page without Link is not known to be GitLab's end").toMatchObject({ projects: 1_500 });
  expect(unexamined.map((part) => part.error)).toContainEqual(expect.stringContaining("Let the proxy in front of GitLab pass its Link and X-* paging headers"));
});

it("where Link passes, a keyset listing of exactly one full page ends there, as GitLab's look-ahead pager ends it, after one request for it one item long", async () => {
  const { dataset } = generateOrganisation({ projects: 150, seed: 3 });
  const ids = dataset.projects.map((p) => p.id).sort((a, b) => a - b);
  sim = await startGitLabSim({ dataset, recordRequests: true });
  const projects = await gitlabClient(sim.url, sim.token).listProjects({ idAfter: ids.at(-101) }).collect();
  expect(projects.map((p) => p.id)).toEqual(ids.slice(-100));
  expect(sim.requests.map((r) => new URL(r.url, sim!.url).searchParams.get("per_page"))).toEqual(["100", "1"]);
});
