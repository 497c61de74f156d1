import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";

// Every ref and variable is allowed, so that only Warden's own checks can refuse.
const POLICY = `version: 1
pipelines:
  allow:
    - project: "acme/**"
      refs: ["**"]
      variables: ["DEPLOY_ENV"]
`;

let sim: GitLabSim;
let env: Record<string, string>;
let project: string;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 3 }).dataset });
  project = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!.path_with_namespace;
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(POLICY) };
});
afterAll(() => sim.close());
beforeEach(() => sim.resetCounters());

describe("warden pipeline, refused before any request", () => {
  it("starts an allowed pipeline (the checks below refuse only what they should)", async () => {
    const run = await warden(["pipeline", project, "main", "DEPLOY_ENV=staging", "--json"], env);
    expect(run.code).toBe(0);
    expect(sim.pipelines.at(-1)).toMatchObject({ ref: "main", variables: [{ key: "DEPLOY_ENV", value: "staging" }] });
  });

  it("a variable given twice, naming it and neither value", async () => {
    const run = await warden(["pipeline", project, "main", "DEPLOY_ENV=a-first", "DEPLOY_ENV=b-second"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("warden pipeline: variable DEPLOY_ENV is given twice\n");
    expect(sim.counters.requests).toBe(0);
  });

  it.each(["a..b", "main@{1}", "@", "main~1", "main^", "a:b", "what?", "rel*", "a[1]", "a\\b", "a b", "a\x1bb", ".hidden", "x/.y", "x.lock", "feature/", "v1.", "a//b", "-x"])(
    "ref %j, as git would",
    async (ref) => {
      // After --, as a ref starting with "-" would otherwise be read as an option.
      const run = await warden(["pipeline", "--", project, ref], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^warden pipeline: ref ".*" is not a valid git ref name: .+\n$/);
      expect(run.stderr).not.toContain("\x1b");
      expect(sim.counters.requests).toBe(0);
    },
  );

  it("a policy without a pipelines section: exit 1 naming the section, no report", async () => {
    const run = await warden(["pipeline", project, "main", "--policy", policyFile("version: 1\n")], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^warden pipeline: the policy has no pipelines section: add pipelines\.allow/);
    expect(sim.counters.requests).toBe(0);
  });
});
