/**
 * The peer: the same job written with @gitbeaker/rest the way its documentation shows — list the
 * group's projects with perPage 100 (keyset where it applies; GitLab offers none for a group's
 * projects), then unshare each stray share. The policy decisions are Warden's own (lib/policy), so
 * the comparison is of the API work only. It examines project shares only (no group details), so
 * it does less than Warden. Once per entry of `runs` ("apply", or "dry,apply,dry"; a dry run lists
 * and judges). Args: url token policyFile runs.
 */
import { readFileSync } from "node:fs";
import { Gitlab } from "@gitbeaker/rest";
import { evaluateShare, parsePolicy } from "../../lib/policy/index.ts";
import { peakRssKB, printResult } from "./run-result.ts";

const [url, token, policyFile, runs] = process.argv.slice(2) as [string, string, string, string];
const policy = parsePolicy(readFileSync(policyFile, "utf8"), policyFile);
const api = new Gitlab({ host: url, token });
const now = new Date();

const started = performance.now();
let removed = 0;
let error: string | undefined;
try {
  for (const run of runs.split(",")) {
    const group = await api.Groups.show("acme");
    const projects = await api.Groups.allProjects(group.id, { includeSubgroups: true, withShared: false, perPage: 100 });
    const strays = projects.flatMap((project) =>
      ((project.shared_with_groups ?? []) as { group_id: number; group_full_path: string; group_access_level: number; expires_at?: string | null }[])
        .filter((share) => {
          const input = { kind: "project" as const, target: project.path_with_namespace, groupPath: share.group_full_path, accessLevel: share.group_access_level, expiresAt: share.expires_at ?? null };
          return evaluateShare(policy, input, now).kind === "stray";
        })
        .map((share) => ({ projectId: project.id, groupId: share.group_id })),
    );
    if (run !== "apply") continue;
    for (const { projectId, groupId } of strays) {
      await api.Projects.unshare(projectId, groupId);
      removed++;
    }
  }
} catch (err) {
  error = err instanceof Error ? err.message : String(err);
}
printResult({ wallMs: performance.now() - started, maxRssKB: peakRssKB(), removed, ...(error ? { error } : {}) });
