/**
 * gitlab.shares.notices.authors: with an earlier author listed, the notices were first read without GitLab's
 * author_id filter (it takes one id), every issue labelled warden::notice in the notices project, whoever
 * opened it, on every run. Anyone who may label issues there (a Reporter: the shares' adders are assigned
 * its notices) set how many pages each run read, a Watch batch every minute included: 100,000 labelled
 * issues were 1,000 pages a listing (a review of the change's finding). One listing per author now, each
 * filtered by author_id (at most 21), reads Warden's notices alone.
 */
import { expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { validated } from "../../support/report.ts";
import { gitlabCall, later, NOTICES, POLICY, sim, start, T0, setClock } from "../../support/notices-world.ts";

const LABELLED = 450;

it("with notices.authors set, the issues others label warden::notice add no pages to a run's reading of the notices", async () => {
  await start();
  const run = (policyText: string, now: Date) => {
    setClock(now);
    const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    return validated(enforce({ gitlab, policy: parsePolicy(policyText, "warden.yaml"), apply: true, now }));
  };
  // Warden (root) opens its two notices.
  await run(POLICY, T0);
  // jane, who can label issues in the notices project, opens many labelled warden::notice (no marker: they are no notice).
  for (let i = 0; i < LABELLED; i++) await gitlabCall("jane", "POST", `/projects/${NOTICES}/issues`, { title: `noise ${i}`, labels: "warden::notice", assignee_ids: [] }, 201);
  // The token's user was another administrator before: its id is listed (any id: here 77).
  const policy = POLICY.replace("notices: { project: security/access-notices", "notices: { authors: [77], project: security/access-notices");
  expect(policy).not.toBe(POLICY);
  const before = sim.requests.length;
  await run(policy, later(1));
  const issuePages = sim.requests.slice(before).filter((r) => r.method === "GET" && /\/projects\/(200|security%2Faccess-notices)\/issues\?/.test(r.url));
  // One listing per author (the token's user, and 77), each filtered by author_id: one page each, whatever others label.
  expect(
    { pages: issuePages.length, unfiltered: issuePages.filter((r) => !/[?&]author_id=/.test(r.url)).length },
    `pages of the notices project's issues one run read, with ${LABELLED} issues others labelled`,
  ).toEqual({ pages: 2, unfiltered: 0 });
}, 60_000);
