/**
 * A concurrency flag above the default is what goes out in flight: undici queues any request above a
 * client's connections per origin (16 unless told), so the CLI gives its GitLab client as many as the
 * flags ask for (bin/cli/io.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("concurrency flags above 16", () => {
  it.each([
    // A dry run that finds strays exits 2.
    ["enforce --list-concurrency 24: the examination's reads", ["enforce", "--list-concurrency", "24"], 2],
    ["enforce --apply --concurrency 24: the removals", ["enforce", "--apply", "--concurrency", "24"], 0],
    ["report shares --list-concurrency 24", ["report", "shares", "--list-concurrency", "24"], 0],
  ])("%s: 24 requests in flight", async (_name, args, code) => {
    // Some 60 groups to read and 90 strays to remove. Each new connection opens as its request goes out:
    // 100 ms a request lets all 24 be open before any answer, on a loaded machine too.
    const { dataset } = generateOrganisation({ projects: 3_000, seed: 3 });
    sim = await startGitLabSim({ dataset, latencyMs: 100 });
    const run = await warden([...args, "--policy", policyFile(standardPolicy())], { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token });
    expect(run.code, run.stderr.slice(-2000)).toBe(code);
    expect(sim.counters.maxConcurrency).toBe(24);
  });
});
