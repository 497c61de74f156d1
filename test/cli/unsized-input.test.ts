/**
 * `warden restore FILE` and `warden apply PLAN` read their file whole
 * (bin/cli/io.ts readWholeFile), refusing one over 64 MB by the size stat() gives. A file with no size
 * (a pipe: `warden restore <(aws logs tail …)`, `/dev/stdin`, a character device) passes that check at
 * 0 bytes and is then read to its end, however long: past the CLI's 256 MB heap the process dies of
 * V8's "JavaScript heap out of memory" (exit 134, a native stack trace on stderr) instead of the clear
 * refusal a regular file of that size gets (the CLI inputs review's finding). Read a megabyte at a time
 * now, and refused past the limit. /dev/zero stands for any endless or oversized stream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 10, seed: 3 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

describe("an input file with no size (a pipe, a device) larger than the CLI reads whole", () => {
  for (const command of ["restore", "apply"]) {
    it(`warden ${command} /dev/zero is refused with a message naming the limit, not a heap crash`, async () => {
      const run = await warden([command, "/dev/zero"], env);
      expect(run.stderr, "the process died of a full heap").not.toMatch(/FATAL ERROR|heap out of memory|Native stack trace/);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/64 MB/);
      expect(sim.counters.requests).toBe(0);
    }, 60_000);
  }
});
