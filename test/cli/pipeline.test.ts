import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { reportJson } from "../support/report.ts";

// Every ref and variable is allowed, so that only Warden's own checks can refuse.
const POLICY = `version: 1
pipelines:
  allow:
    - project: "acme/**"
      refs: ["**"]
      variables: ["DEPLOY_ENV"]
`;

/** A token of its own for pipelines, of another user than GITLAB_TOKEN's. */
const PIPELINE_TOKEN = "glpat-sim-pipelines-7Rk2";

let sim: GitLabSim;
let env: Record<string, string>;
let project: string;
let simProject: SimProject;

beforeAll(async () => {
  sim = await startGitLabSim({
    dataset: generateOrganisation({ projects: 60, seed: 3 }).dataset,
    tokens: { "glpat-sim-admin": { admin: true }, [PIPELINE_TOKEN]: { admin: true, username: "warden-pipelines" } },
    recordRequests: true,
  });
  simProject = sim.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
  simProject.protected_branches = ["main", "release/*"];
  project = simProject.path_with_namespace;
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(POLICY) };
});
afterAll(() => sim.close());
beforeEach(() => sim.resetCounters());

/** Every route the simulator saw that is not a read. */
const changes = () => Object.keys(sim.counters.byRoute).filter((route) => !route.startsWith("GET "));

describe("warden pipeline: a dry run unless --apply, like every command", () => {
  it("checks project, branch and variables with GETs only, and shows what it would start (exit 2)", async () => {
    const started = sim.pipelines.length;
    const run = await warden(["pipeline", project, "release/1.0", "DEPLOY_ENV=staging"], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Warden pipeline \(dry run\): 1 pipeline request\n/);
    expect(run.stdout).toMatch(/planned {2}branch release\/1\.0 @ [0-9a-f]{8} {2}DEPLOY_ENV/);
    expect(run.stdout).toContain("dry run: nothing started (--apply starts it)");
    expect(run.stdout).toMatch(/\n5 requests \(0 pages, 0 retries, 0 rate-limited\)/);
    expect(run.stdout).not.toContain("staging");
    expect(run.stderr).toBe("");
    expect(changes()).toEqual([]);
    expect(sim.counters.byRoute["GET /projects/:id/repository/branches/:branch"]).toBe(1);
    expect(sim.pipelines).toHaveLength(started);
  });

  it("starts it with --apply, wherever the flag comes", async () => {
    const run = await warden(["pipeline", "--apply", project, "main", "DEPLOY_ENV=staging", "--json"], env);
    expect(run.code).toBe(0);
    expect(reportJson(run.stdout)).toMatchObject({ dryRun: false, actions: [{ status: "created", refKind: "branch" }] });
    expect(sim.pipelines.at(-1)).toMatchObject({ ref: "main", variables: [{ key: "DEPLOY_ENV", value: "staging" }] });
  });

  it("a ref that is neither a branch nor a tag: refused naming it, with or without --apply, and no POST", async () => {
    for (const apply of [[], ["--apply"]]) {
      const run = await warden(["pipeline", project, "release/9.9", ...apply], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`refused: ref release/9.9 is neither a branch nor a tag of project ${project}`);
    }
    expect(changes()).toEqual([]);
  });

  it("a project GitLab does not know: refused after 1 request, counted in the singular", async () => {
    const run = await warden(["pipeline", "acme/no-such-project", "main"], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("refused: project acme/no-such-project not found, or the token cannot see it");
    expect(run.stdout).toMatch(/\n1 request \(0 pages, 0 retries, 0 rate-limited\)/);
  });

  it("a misspelt --apply: did you mean, exit 1, nothing sent", async () => {
    const run = await warden(["pipeline", project, "main", "--aply"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`warden pipeline: unknown option "--aply": did you mean "--apply"?\nRun 'warden pipeline --help' for the usage.\n`);
    expect(sim.counters.requests).toBe(0);
  });
});

describe("warden pipeline, refused before any request", () => {
  it("a variable given twice, naming it and neither value", async () => {
    const run = await warden(["pipeline", project, "main", "DEPLOY_ENV=a-first", "DEPLOY_ENV=b-second"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("warden pipeline: variable DEPLOY_ENV is given twice\n");
    expect(sim.counters.requests).toBe(0);
  });

  it("a variable without its KEY= (a secret's value pasted alone, or after an '='): refused naming which one, its text never echoed", async () => {
    const secret = "s3cr3t-deploy-key-9QzX";
    for (const [args, which] of [
      [[secret], "the 1st"],
      [["DEPLOY_ENV=a", secret], "the 2nd"],
      [["DEPLOY_ENV=a", "X=b", `=${secret}`], "the 3rd"],
    ] as const) {
      const run = await warden(["pipeline", project, "main", ...args], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`warden pipeline: variables are KEY=VALUE; ${which} variable has no KEY= before its value (not shown: it may be a secret)\n`);
      expect(run.stderr + run.stdout).not.toContain(secret.slice(0, 6));
    }
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

describe("warden pipeline: only a protected ref runs with Warden's identity", () => {
  /** A branch a developer pushes with a CI file of their own. */
  const push = (branch: string) => sim.repositories.commit(simProject, { ".gitlab-ci.yml": "steal:\n  script: env\n" }, branch);

  it("an unprotected branch a developer pushed: refused naming the cause and the fix, with or without --apply, and no POST", async () => {
    push("feature/x");
    for (const apply of [[], ["--apply"]]) {
      const run = await warden(["pipeline", project, "feature/x", ...apply], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`refused: branch feature/x of project ${project} is not protected: whoever can push to it chooses what a pipeline Warden starts runs`);
      expect(run.stdout).toMatch(/Protect the branch in GitLab \(Settings > Repository > Protected branches\), or set unprotected: true on its rule/);
    }
    expect(changes()).toEqual([]);
  });

  it("a branch that moves between the check and the start: the pipeline is cancelled, and the run fails saying so", async () => {
    const checked = push("release/race");
    let moved = "";
    const stop = sim.beforeAnswer(({ route }) => {
      if (route === "POST /projects/:id/pipeline" && moved === "") moved = push("release/race");
    });
    const run = await warden(["pipeline", project, "release/race", "--apply", "--json"], env).finally(stop);
    expect(run.code).toBe(1);
    expect(reportJson(run.stdout)).toMatchObject({ actions: [{ status: "failed", commit: checked, pipelineCommit: moved, pipelineStatus: "canceled" }] });
    expect(sim.pipelines.at(-1)).toMatchObject({ ref: "release/race", sha: moved, status: "canceled" });
    // The text report says why, not only "failed".
    moved = "";
    const again = push("release/race");
    const stopAgain = sim.beforeAnswer(({ route }) => {
      if (route === "POST /projects/:id/pipeline" && moved === "") moved = push("release/race");
    });
    const text = await warden(["pipeline", project, "release/race", "--apply"], env).finally(stopAgain);
    expect(text.stdout).toContain(`failed: the pipeline runs commit ${moved.slice(0, 8)}, not ${again.slice(0, 8)} that was checked (release/race moved in between): cancelled it`);
  });

  it("WARDEN_PIPELINE_TOKEN: every request sent with it, the pipeline started as its user; GITLAB_TOKEN neither sent nor needed", async () => {
    const { GITLAB_TOKEN: _unused, ...withoutGitlabToken } = env;
    const run = await warden(["pipeline", project, "main", "--apply"], { ...withoutGitlabToken, WARDEN_PIPELINE_TOKEN: PIPELINE_TOKEN });
    expect(run.code).toBe(0);
    expect(sim.pipelines.at(-1)).toMatchObject({ ref: "main", user: "warden-pipelines" });
    expect(sim.requests.length).toBeGreaterThan(1);
    expect(sim.requests.every((r) => r.headers["private-token"] === PIPELINE_TOKEN)).toBe(true);
    expect(run.stdout + run.stderr).not.toContain(PIPELINE_TOKEN);
  });

  it("a refused or empty WARDEN_PIPELINE_TOKEN is named, never quoted, and never falls back to GITLAB_TOKEN", async () => {
    const refused = await warden(["pipeline", project, "main", "--apply"], { ...env, WARDEN_PIPELINE_TOKEN: "glpat-revoked-9Qz7Lm" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/WARDEN_PIPELINE_TOKEN was refused \(401\)/);
    expect(refused.stdout + refused.stderr).not.toContain("glpat-revoked-9Qz7Lm");
    expect(sim.requests.every((r) => r.headers["private-token"] === "glpat-revoked-9Qz7Lm")).toBe(true);
    sim.resetCounters();
    const empty = await warden(["pipeline", project, "main", "--apply"], { ...env, WARDEN_PIPELINE_TOKEN: "" });
    expect([empty.code, empty.stderr]).toEqual([1, "warden pipeline: WARDEN_PIPELINE_TOKEN is set but empty\n"]);
    expect(sim.counters.requests).toBe(0);
    expect(changes()).toEqual([]);
  });
});
