/**
 * A component's version as GitLab resolves it: `sha_by_shorthand_semver || sha_by_released_tag ||
 * sha_by_ref` (Gitlab::Ci::Components::InstancePath). `~latest` and a partial version (`@1`, `@1.2`) are
 * the catalog's newest matching release, whose tag any Developer may have created, before any ref of that
 * name: Warden judges a component by the one branch, tag or commit its version names, so it refuses
 * them, where GitLab's CI Lint lists the component and where only Warden's own walk reads it.
 */
import { describe, expect, it } from "vitest";
import { ciWorld } from "../../support/ci-world.ts";

const w = ciWorld();

describe("pipeline: a component's partial version", () => {
  it("a component @1 is refused even where the project has a protected ref named 1", async () => {
    const t = w.templates;
    w.sim.repositories.commit(t, { "templates/deploy.yml": "deploy:\n  script: ./deploy.sh\n" }, "1");
    t.protected_branches = ["release", "1"];
    w.commit(`include:\n  - component: gitlab.example.com/${t.path_with_namespace}/deploy@1\n`);
    const action = await w.start({ apply: false });
    expect(action, "GitLab runs the newest 1.x.y release of the component, not branch 1").toMatchObject({ status: "refused", reason: expect.stringContaining(`and its version "1" names the newest catalog release`) });
  });

  it.each(["~latest", "1", "1.2"])("a component @%s behind rules: (read by Warden alone) is refused, naming the fix", async (version) => {
    w.commit(`include:\n  - component: gitlab.example.com/${w.templates.path_with_namespace}/deploy@${version}\n    rules:\n      - if: $DEPLOY_ENV == "prod"\nbuild:\n  script: make\n`);
    const action = await w.start({ variables: [{ key: "DEPLOY_ENV", value: "prod" }] });
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining(`, where its version "${version}"`) });
    expect(action.reason).toContain("pin a full version, a protected tag or a commit");
    expect(w.sim.pipelines).toEqual([]);
  });
});
