/**
 * The scope of an examination: the outermost scope groups the policy names, or the whole instance in
 * id ranges; and whether the scope's projects come with its groups' details.
 */
import { HttpError, type GitLabClient } from "../../../gitlab/index.ts";
import { scopeGroups, type Policy } from "../../../policy/index.ts";
import type { ScopeRoot } from "./work.ts";

/** Above this many projects, the instance (without a scope) is listed in id ranges that run in parallel. */
const PARTITION_ABOVE = 2_000;

/** A scope that does not exist: another attempt would not find it either (lib/http's isTerminal). */
export class ScopeError extends Error {
  override name = "ScopeError";
  readonly terminal = true;
}

/**
 * Whether the projects are read with their groups' details rather than listed: where the token sees
 * every group, so that the details of the scope's groups, which group shares need anyway, are every
 * group a project can sit in.
 */
export function projectsWithDetails(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): boolean {
  return roots !== undefined && seesAllGroups;
}

/**
 * The outermost scope groups (a group's namespace id is its group id), or undefined for the whole
 * instance when the policy names no scope. Groups inside another scope group are left out so nothing
 * is listed twice. With `unresolved`, a scope group GitLab fails to look up (after lib/http's retries:
 * a 5xx every time, a bug on one namespace) is handed to it and left out, and the others are returned:
 * otherwise one group would fail every run, and nothing under the others would be enforced either. A
 * refused token (401), a stop, a group not found (404: a setting to fix), a user namespace, or every
 * scope group failing so (nothing left to examine) still end it.
 */
export async function scopeRoots(gitlab: GitLabClient, policy: Policy, signal?: AbortSignal, unresolved?: (path: string, err: unknown) => void): Promise<ScopeRoot[] | undefined> {
  const groups = scopeGroups(policy);
  if (groups === undefined) return undefined;
  // GitLab paths are case-insensitive: acme and ACME are one group, and acme/mobile is inside acme.
  const paths = [...new Map(groups.map((g) => [g.toLowerCase(), g])).values()];
  const outermost = paths.filter((g) => !paths.some((other) => g.toLowerCase().startsWith(`${other.toLowerCase()}/`)));
  const failed: { path: string; err: unknown }[] = [];
  const roots = await Promise.all(
    outermost.map(async (path): Promise<ScopeRoot[]> => {
      let namespace;
      try {
        namespace = await gitlab.getNamespace(path, signal);
      } catch (err) {
        if (err instanceof HttpError && err.status === 404) throw new ScopeError(`gitlab.scope.groups: group "${path}" was not found, or the token cannot see it`);
        if (!unresolved || signal?.aborted || (err instanceof HttpError && err.status === 401)) throw err;
        failed.push({ path, err });
        return [];
      }
      if (namespace.kind !== "group") throw new ScopeError(`gitlab.scope.groups: "${path}" is a user namespace, not a group`);
      return [{ id: namespace.id, path: namespace.full_path }];
    }),
  );
  // None looked up: there is nothing to examine, and the run fails as it did (its error the first group's).
  if (failed.length === outermost.length) throw failed[0]!.err;
  for (const { path, err } of failed) unresolved!(path, err);
  // Two paths can still name one group (an old path GitLab redirects): list it once.
  return [...new Map(roots.flat().map((root) => [root.id, root])).values()];
}

/**
 * The whole instance, by keyset on id: one listing for a small instance; otherwise `ranges` id ranges
 * listed side by side (id_after/id_before), each following its own links, the last one open-ended so a
 * project created meanwhile is still seen. One tiny request finds the newest id and the count.
 */
export async function instanceRanges(gitlab: GitLabClient, ranges: number, signal: AbortSignal): Promise<{ after?: number; before?: number }[]> {
  const newest = await gitlab.newestProject(signal);
  if (!newest || isSmall(newest.total)) return [{}];
  const step = Math.ceil(newest.id / ranges);
  return Array.from({ length: ranges }, (_, i) => ({ ...(i === 0 ? {} : { after: i * step }), ...(i === ranges - 1 ? {} : { before: (i + 1) * step + 1 }) }));
}

function isSmall(total: number | "unknown" | undefined): boolean {
  return typeof total === "number" && total <= PARTITION_ABOVE;
}
