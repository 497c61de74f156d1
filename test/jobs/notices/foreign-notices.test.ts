/**
 * Every run (sweep, --target, watch, each streamed event) lists the open issues labelled
 * warden::notice, and where a stray has no notice the closed ones too (read.ts, closed.ts). Anyone who
 * may label issues in the notices project (its Reporters) can open thousands with that label: none of
 * them counts, and none may add a page to every run, so Warden asks for its own user's (`author_id`).
 */
import { describe, expect, it } from "vitest";
import { ACCESS, type GitLabDataset } from "../../../sim/gitlab/index.ts";
import { gitlabCall, NOTICES, run, sim, start, world } from "../../support/notices-world.ts";

const FORGED = 1_000;

function reporterWorld(): GitLabDataset {
  const dataset = world();
  dataset.projects.find((p) => p.id === NOTICES)!.members = { jane: ACCESS.reporter };
  return dataset;
}

/** The notices project is named by its path (security%2Faccess-notices) in Warden's requests. */
const issueListings = () => sim.requests.filter((r) => r.method === "GET" && /\/projects\/[^/]+\/issues$/.test(r.url.split("?")[0]!)).length;

describe("issues others label warden::notice", () => {
  it(`${FORGED} labelled issues jane opened add no page to a run's notice listings`, async () => {
    await start(reporterWorld());
    sim.requests.length = 0;
    await run();
    const baseline = issueListings();
    expect(baseline).toBeGreaterThan(0);

    // Jane opens them 25 at a time; a closed one would be listed by the closed listing as well.
    for (let from = 0; from < FORGED; from += 25) {
      await Promise.all(Array.from({ length: 25 }, (_, i) =>
        gitlabCall("jane", "POST", `/projects/${NOTICES}/issues`, { title: `noise ${from + i}`, description: "<!-- warden-share: project:100:group:20 -->", labels: "warden::notice" }, 201)));
    }

    sim.requests.length = 0;
    const report = await run();
    // They change nothing a run decides: the forged marker counts for nothing.
    expect(report.actions.map((a) => a.status)).toEqual(["notify", "notify"]);
    // Without author_id: 10 more pages of the open listing in every run, 100 more per 10,000 issues.
    expect(issueListings()).toBe(baseline);
  });
});
