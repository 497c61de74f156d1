/**
 * A proxy in front of GitLab that passes only standard response headers (an allowlist, as some API
 * gateways are set up), dropping `Link` and the `X-*` paging headers. GitLab's offset listings always
 * carry a `Link` (rel="first" at the least; docs/api-contract.md). A full offset page without one, or
 * X-Next-Page, was taken for the last page: each listing ended after its first page, and the run said it
 * was complete (765 of 3,000 projects judged; a hostile review's finding). It is a PagingError now
 * (lib/paging/gitlab.ts), so the listing is named as not examined.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { validated } from "../support/report.ts";
import { startProxy, type Proxy } from "../support/spec.ts";

let sim: GitLabSim | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await sim?.close();
});

const PAGING = ["link", "x-next-page", "x-prev-page", "x-page", "x-per-page", "x-total", "x-total-pages"];

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
