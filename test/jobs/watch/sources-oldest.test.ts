/**
 * Which groups a non-administrator's watch reads (lib/jobs/watch/sources.ts) when the scope has two groups
 * and more groups than the limit allows. docs/how-enforce-works.md ("Watching") promises the oldest are
 * watched, "so that whoever may create subgroups can neither push the groups watched out nor turn the watch
 * off by creating one more". The first scope group's subgroups were once listed to the end before the
 * second's: subgroups made (later, so newer) in the first pushed every subgroup of the second out of the
 * watch (the second watch review's finding). The oldest are taken across the scope groups now.
 */
import { describe, expect, it } from "vitest";
import { cursorFor, pollOnce, watchSources } from "../../../lib/jobs/watch/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim, type GitLabDataset } from "../../../sim/gitlab/index.ts";
import { afterTest } from "../../support/cleanup.ts";
import { allShares, client, share, WATCH_TOKENS, watchWorld } from "../../support/watch-world.ts";

const group = (id: number, path: string, owners: string[], parent_id: number | null = null) =>
  ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, full_path: path, parent_id, visibility: "internal" as const, shared_with_groups: [], owners });

/** watchWorld plus a second scope group, beta, with an old subgroup; acme's subgroups 50-52 were made later (higher ids). */
function twoRoots(): GitLabDataset {
  const world = watchWorld();
  world.groups.push(group(30, "beta", ["jane"]), group(31, "beta/old", [], 30), group(50, "acme/new1", [], 10), group(51, "acme/new2", [], 10), group(52, "acme/new3", [], 10));
  return world;
}

// 240 requests an hour at a poll a minute: four sources.
const policy = parsePolicy(
  `version: 1
gitlab:
  scope: { groups: [acme, beta] }
  shares:
    allow:
      - group: "acme/**"
      - group: "beta/**"
  guard: { maxRemovals: 100, unmatchedRules: warn }
  watch: { maxRequestsPerHour: 240 }
`,
  "watch.yaml",
);

describe("a watch over two scope groups, more groups than the limit allows", () => {
  it("watches the oldest subgroups of both scope groups: subgroups made later in the first do not push the second's out, and a share made on the second's is removed", async () => {
    const sim = afterTest.add(await startGitLabSim({ dataset: twoRoots(), tokens: WATCH_TOKENS, recordRequests: true }));
    const gitlab = client(sim, "jane");
    const { sources } = await watchSources(gitlab, policy, 60_000);
    // The scope groups, then the oldest subgroups: acme/team (11) and beta/old (31), not acme/new1 (50).
    expect(sources.map((s) => s.label).sort()).toEqual(["acme", "acme/team", "beta", "beta/old"]);

    const cursor = await cursorFor(gitlab, sources, undefined);
    // A group share made on beta/old, recorded on beta/old (the sharing group), with partners (not allowed).
    await share(sim, "jane", "/groups/31/share", 20);
    const polled = await pollOnce({ gitlab, policy, sources, cursor, apply: true });
    expect(polled.report?.actions ?? []).toMatchObject([{ kind: "group", status: "done" }]);
    expect(allShares(sim)).toEqual([]);
  });

  it("a scope group GitLab fails to look up, every time, does not stop the watch of the other: its events are left out, and the statement says so", async () => {
    const sim = afterTest.add(await startGitLabSim({ dataset: twoRoots(), tokens: WATCH_TOKENS, faults: [{ kind: "status", status: 500, method: "GET", path: "/api/v4/namespaces/beta", times: 1_000_000 }] }));
    const { sources, statement, partial } = await watchSources(client(sim, "jane"), policy, 60_000);
    expect(sources.map((s) => s.label).sort()).toEqual(["acme", "acme/new1", "acme/new2", "acme/team"]);
    expect(partial).toBe(true);
    expect(statement).toMatch(/; scope group beta could not be looked up \(.*answered 500.*\): its events are not read until the sources are looked up again, and its shares are left to the scheduled sweep$/);
  });
});
