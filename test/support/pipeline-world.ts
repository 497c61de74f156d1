/**
 * A GitLab simulator per test with one project under acme/platform/ whose `main` is protected (only
 * Maintainers push or merge): where a `pipelines.allow` rule for `acme/platform/**` starts pipelines.
 */
import { afterEach, beforeEach } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";

export interface PipelineWorld {
  readonly sim: GitLabSim;
  readonly platform: SimProject;
  /** A client of the simulator, or of a front at `url` in front of it. */
  gitlab(url?: string): GitLabClient;
}

export function pipelineWorld(): PipelineWorld {
  let sim: GitLabSim;
  let platform: SimProject;
  beforeEach(async () => {
    sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 3 }).dataset });
    platform = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
    platform.protected_branches = ["main"];
  });
  afterEach(() => sim.close());
  return {
    get sim() {
      return sim;
    },
    get platform() {
      return platform;
    },
    gitlab: (url = sim.url) => new GitLabClient({ url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } }),
  };
}
