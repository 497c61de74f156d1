/**
 * The deployment's policy. With WARDEN_POLICY_PROJECT (set at deploy), read from that GitLab
 * repository at each run, so a merged change applies at the next run with no redeploy; else the file
 * bundled at deploy. Either fails closed: no read, no run, and never another policy in its place.
 */
import { resolve } from "node:path";
import { DEFAULT_POLICY_FILE, EXAMPLE_POLICY, loadPolicyFile } from "../../../lib/config/policy-file.ts";
import { loadGitLabPolicy, type GitLabPolicy, type GitLabPolicyLocation, type PolicySettingNames } from "../../../lib/config/policy-source.ts";
import type { GitLabClient } from "../../../lib/gitlab/index.ts";
import type { Policy } from "../../../lib/policy/index.ts";
import { gitlabClient } from "./clients.ts";
import { secrets } from "./secrets.ts";

/** How a deployment names its policy, for the error when the bundle has none where the function looks. */
const POLICY_NAMING =
  "sst deploy bundles the file WARDEN_POLICY_FILE names (default warden.yaml next to sst.config.ts) as warden.yaml, and the function's " +
  `WARDEN_POLICY names another in the bundle: deploy again with one (start from ${EXAMPLE_POLICY})`;

export const REPOSITORY_POLICY_NAMES: PolicySettingNames = {
  project: "WARDEN_POLICY_PROJECT (set at sst deploy)",
  path: "WARDEN_POLICY_PATH (set at sst deploy)",
  ref: "WARDEN_POLICY_REF (set at sst deploy)",
  token: "the secret's gitlabToken",
};

/** The repository file the deployment names, or undefined for the bundled file. */
export function repositoryPolicyLocation(env: NodeJS.ProcessEnv = process.env): GitLabPolicyLocation | undefined {
  const project = env["WARDEN_POLICY_PROJECT"];
  if (!project) return undefined;
  const ref = env["WARDEN_POLICY_REF"];
  return { project, path: env["WARDEN_POLICY_PATH"] || DEFAULT_POLICY_FILE, ...(ref ? { ref } : {}) };
}

/**
 * A reader that keeps the last policy read in the container: each read is one file request (the
 * answer carries content and ids together), parsed again only when the file's blob id changed.
 * Concurrent callers share one read; a failed read is never replaced by the last good one.
 */
export function repositoryPolicy(at: GitLabPolicyLocation, client: () => Promise<GitLabClient>): () => Promise<Policy> {
  let last: GitLabPolicy | undefined;
  let reading: Promise<Policy> | undefined;
  return () => {
    reading ??= (async () => {
      try {
        last = await loadGitLabPolicy(await client(), at, { names: REPOSITORY_POLICY_NAMES, previous: last });
        return last.policy;
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  };
}

let bundled: Promise<Policy> | undefined;
let fromRepository: (() => Promise<Policy>) | undefined;

/**
 * The policy for this run: a run reads it once and hands it on (runJob's `policy`). The bundled file is read once per container; WARDEN_POLICY is relative
 * to the bundle root (where sst.config.ts copies the file, next to the handlers).
 */
export function loadPolicy(): Promise<Policy> {
  const at = repositoryPolicyLocation();
  if (at) {
    fromRepository ??= repositoryPolicy(at, async () => gitlabClient(await secrets.get()));
    return fromRepository();
  }
  if (!bundled) {
    const path = resolve(process.env["LAMBDA_TASK_ROOT"] ?? process.cwd(), process.env["WARDEN_POLICY"] ?? DEFAULT_POLICY_FILE);
    const loading = loadPolicyFile(path, POLICY_NAMING);
    // A failed read is not kept: the next invocation tries again (and reports the problem again).
    loading.catch(() => {
      if (bundled === loading) bundled = undefined;
    });
    bundled = loading;
  }
  return bundled;
}
