/**
 * A file's inputs (`$[[ inputs.x ]]`) interpolated into a KEY. GitLab interpolates every string of a file
 * with a `spec:` header, keys included, at any depth (Gitlab::Ci::Interpolation::Config#recursive_replace:
 * `new_key = recursive_replace(key, …)`), before it reads the file's `include:` and before it makes any
 * job; an input's default applies where the includer passes none. Warden's walk reads a file with the
 * header set aside and the keys as written, so a `trigger:` or an `include:` spelled `$[[ inputs.k ]]`
 * would not be seen where GitLab's CI Lint does not show the interpolated result (a child pipeline, an
 * include behind `rules:`): a file the walk reads with a key that may so become one the walk judges is
 * refused; a job named `"$[[ inputs.prefix ]]-deploy"` (the components idiom) can only be a job's name.
 */
import { describe, expect, it } from "vitest";
import { ciWorld } from "../../support/ci-world.ts";

const w = ciWorld();
const header = (name: string, value: string) => `spec:\n  inputs:\n    ${name}:\n      default: ${value}\n---\n`;

describe("pipeline: a trigger or an include spelled by an input, as a key", () => {
  it("a child pipeline whose file makes `trigger:` from an input's default starts a project no rule allows: refused", async () => {
    // Control: the same child file with the key written out is refused.
    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": `deploy:\n  trigger: ${w.payroll.path_with_namespace}\n` });
    expect(await w.start({ apply: false })).toMatchObject({ status: "refused" });

    w.commit("child:\n  trigger:\n    include: ci/child.yml\n", { "ci/child.yml": `${header("how", "trigger")}deploy:\n  $[[ inputs.how ]]: ${w.payroll.path_with_namespace}\n` });
    const action = await w.start();
    expect(action, "GitLab interpolates the key to trigger: and the child pipeline starts payroll's pipeline as Warden's user").toMatchObject({ status: "refused", reason: expect.stringContaining("a key an input writes") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a file included behind the requester's rules: whose `include:` key is an input's default takes a Developer-written file: refused", async () => {
    const ci = "include:\n  - local: ci/prod.yml\n    rules:\n      - if: $DEPLOY_ENV == \"prod\"\nbuild:\n  script: make\n";
    const prod = (key: string) => `${key}:\n  - project: ${w.templates.path_with_namespace}\n    ref: main\n    file: deploy.yml\n`;
    // Control: written out, the include of templates@main (its Developers push there) is refused.
    w.commit(ci, { "ci/prod.yml": prod("include") });
    expect(await w.start({ apply: false, variables: [{ key: "DEPLOY_ENV", value: "prod" }] })).toMatchObject({ status: "refused" });

    w.commit(ci, { "ci/prod.yml": header("key", "include") + prod("$[[ inputs.key ]]") });
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action, "with DEPLOY_ENV=prod GitLab includes templates' deploy.yml at main, which any of its Developers writes").toMatchObject({ status: "refused", reason: expect.stringContaining("a key an input writes") });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a key an input writes deep in a job is refused too, naming the file, the key and the fix", async () => {
    w.commit("include:\n  - local: ci/deploy.yml\nbuild:\n  script: make\n", { "ci/deploy.yml": `${header("kind", "forward")}deploy:\n  script: ./deploy.sh\n  rules:\n    - $[[ inputs.kind ]]: true\n` });
    const action = await w.start({ apply: false });
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining(`"ci/deploy.yml"`) });
    expect(action.reason).toContain(`"$[[ inputs.kind ]]"`);
    expect(action.reason).toContain("write the key out");
  });
});

const prefixed = "spec:\n  inputs:\n    job-prefix:\n      default: app\n---\n";

describe("pipeline: a job named by an input (the components idiom), which can only be a job's name, is let be", () => {
  it("a component at a ref only Maintainers change, whose job is named \"$[[ inputs.job-prefix ]]-deploy\", starts", async () => {
    const t = w.templates;
    w.sim.repositories.commit(t, { "templates/deploy.yml": `${prefixed}"$[[ inputs.job-prefix ]]-deploy":\n  script: ./deploy.sh\n` }, "release");
    w.commit(`include:\n  - component: gitlab.example.com/${t.path_with_namespace}/deploy@release\n    inputs:\n      job-prefix: api\nbuild:\n  script: make\n`);
    const action = await w.start();
    expect(action.reason ?? "").not.toContain("a key an input writes");
    expect(action).toMatchObject({ status: "created" });
  });

  it("a local file with a job named \"$[[ inputs.job-prefix ]]-test\" starts", async () => {
    w.commit("include:\n  - local: ci/test.yml\n    inputs:\n      job-prefix: unit\nbuild:\n  script: make\n", { "ci/test.yml": `${prefixed}"$[[ inputs.job-prefix ]]-test":\n  script: make test\n` });
    const action = await w.start();
    expect(action.reason ?? "").not.toContain("a key an input writes");
    expect(action).toMatchObject({ status: "created" });
  });
});
