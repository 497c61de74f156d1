/** The enforce job's tests' world: the seeded organisation on the GitLab simulator, and the job run on it as the CLI runs it, its report validated. */
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce, type EnforceOptions } from "../../lib/jobs/index.ts";
import type { Steps } from "../../lib/jobs/steps.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import { standardPolicy } from "./policies.ts";
import { validated } from "./report.ts";
import { afterTest } from "./cleanup.ts";

/** The simulator of the test running (a live binding: setup() replaces it), closed after each test (test/support/cleanup.ts). */
export let sim: GitLabSim;

/** Starts the test's simulator on a dataset of its own. */
export async function startSim(opts: GitLabSimOptions): Promise<GitLabSim> {
  sim = afterTest.add(await startGitLabSim(opts));
  return sim;
}

export async function setup(opts: GitLabSimOptions & { projects?: number } = {}) {
  const { dataset, intents } = generateOrganisation({ projects: opts.projects ?? 600, seed: 7 });
  await startSim({ dataset, ...opts });
  const strays = intents.filter((i) => i.kind === "project" && i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`).sort();
  return { dataset, strays };
}

/** The job as the CLI runs it, or in `steps` as a durable execution does (test/support/steps.ts). */
export function run(opts: Partial<EnforceOptions> & { token?: string; maxRemovals?: number } = {}, steps?: Steps) {
  const gitlab = new GitLabClient({ url: sim.url, token: opts.token ?? sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return validated(enforce({ gitlab, policy: parsePolicy(standardPolicy(opts.maxRemovals), "test.yaml"), ...opts }, steps));
}

// This organisation has no group shares: every action is a project share's.
export const projectActions = (report: Awaited<ReturnType<typeof run>>) => report.actions.filter((a) => a.kind === "project");
export const planned = (report: Awaited<ReturnType<typeof run>>) => projectActions(report).map((a) => `${a.projectId}:${a.groupId}`).sort();
export const shareCount = (sim: GitLabSim) => sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.length, 0);
