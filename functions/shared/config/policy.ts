/**
 * The deployment's policy. With WARDEN_POLICY_PROJECT (set at deploy), read from that GitLab
 * repository at each run, so a merged change applies at the next run with no redeploy; else the file
 * bundled at deploy. Either fails closed: no read, no run, and never another policy in its place.
 */
import { resolve } from "node:path";
import { DEFAULT_POLICY_FILE, EXAMPLE_POLICY, loadPolicyFile } from "../../../lib/config/policy-file.ts";
import type { GitLabPolicyLocation } from "../../../lib/config/policy-source.ts";
import type { Policy, PolicySource } from "../../../lib/policy/index.ts";
import { ConfigError } from "./settings.ts";

/** How a deployment names its policy, for the error when the bundle has none where the function looks. */
const POLICY_NAMING =
  "sst deploy bundles the file WARDEN_POLICY_FILE names (default warden.yaml next to sst.config.ts) as warden.yaml, and the function's " +
  `WARDEN_POLICY names another in the bundle: deploy again with one (start from ${EXAMPLE_POLICY})`;

/** The repository file the deployment names, or undefined for the bundled file. */
export function repositoryPolicyLocation(env: NodeJS.ProcessEnv = process.env): GitLabPolicyLocation | undefined {
  const project = env["WARDEN_POLICY_PROJECT"];
  if (!project) return undefined;
  const ref = env["WARDEN_POLICY_REF"];
  // The deployment's opt-out from a protected ref: exactly "1", as sst.config.ts passes it (anything else keeps the check).
  const allowUnprotectedRef = env["WARDEN_POLICY_ALLOW_UNPROTECTED_REF"] === "1";
  return { project, path: env["WARDEN_POLICY_PATH"] || DEFAULT_POLICY_FILE, ...(ref ? { ref } : {}), ...(allowUnprotectedRef ? { allowUnprotectedRef } : {}) };
}

/** Imported only when the policy is in a repository: the GitLab client stays out of a file-policy chat-ops cold start. */
function repositoryReader() {
  return import("./policy-repository.ts");
}

let bundled: Promise<Policy> | undefined;
let fromRepository: Promise<(signal?: AbortSignal) => Promise<Policy>> | undefined;

/**
 * The policy for this run: a run reads it once and hands it on (runJob's `policy`). The bundled file
 * is read once per container; WARDEN_POLICY is relative to the bundle root (where sst.config.ts
 * copies the file, next to the handlers). `signal`, the run's deadline, cuts a read from a repository
 * (a GitLab that holds it off with a long Retry-After): the run then fails, as any run does, in time to say so.
 */
export async function loadPolicy(signal?: AbortSignal): Promise<Policy> {
  const at = repositoryPolicyLocation();
  if (at) {
    fromRepository ??= repositoryReader().then(({ repositoryPolicy }) => repositoryPolicy(at));
    return (await fromRepository)(signal);
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

/** The GitLab requests this container's reads of a repository policy have sent (none for the bundled file). */
export async function policyReadRequests(): Promise<number> {
  return repositoryPolicyLocation() ? (await repositoryReader()).policyReadRequests() : 0;
}

/**
 * The policy an execution was begun with, read again in a later invocation of it: a durable run spans
 * invocations (minutes to days), and a commit or a redeploy in between must not change the policy
 * half its slices are judged by. A repository policy is read at the very commit recorded; either kind
 * is refused when its text is no longer the one recorded (a bundled file changed by a redeploy).
 * `signal`, the invocation's deadline, cuts a repository's read as it does the first (loadPolicy).
 */
export async function loadPolicyAgain(begunWith: PolicySource, signal?: AbortSignal): Promise<Policy> {
  const at = repositoryPolicyLocation();
  const policy =
    at && begunWith.source === "gitlab"
      ? await (await repositoryReader()).policyAtCommit({ ...at, ref: begunWith.commitId }, begunWith.projectId, signal)
      : await loadPolicy();
  if (policy.source.sha256 !== begunWith.sha256) {
    throw new ConfigError(
      `the policy changed during this execution (begun under sha256 ${begunWith.sha256.slice(0, 12)}, now ${policy.source.sha256.slice(0, 12)}, as the deployment was changed): ` +
        "it stopped rather than judge part of the run by another policy; the next run uses the new one",
    );
  }
  // Named as it was at the start (the branch, not the commit it was read again at).
  return { ...policy, source: begunWith };
}
