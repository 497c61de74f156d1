/**
 * How enforce lists the projects in scope: each scope group once (or the whole instance), as one
 * listing or, when large, as partitions listed side by side, each following its own links.
 */
import { HttpError, type GitLabClient, type Project } from "../gitlab/index.ts";
import type { Listing, Page } from "../paging/index.ts";
import { scopeGroups, type Policy } from "../policy/index.ts";

/** Above this many projects, a scope group (or the instance) is listed in partitions that run in parallel. */
export const PARTITION_ABOVE = 2_000;

export type Pages = AsyncIterable<Page<Project>>;

export class ScopeError extends Error {
  override name = "ScopeError";
}

/**
 * Starts listing one scope group and judges the first page. Its x-total decides the rest: a small
 * group's listing simply goes on; a large one (or one above 10,000, which GitLab will not count) is
 * split into its own projects and each direct subgroup's tree, every partition following its own
 * links. /groups/:id/projects has no id filter to split on, so subgroups are the seams; each costs at
 * most one partial page, and the first page's projects, listed again by their partition, are not
 * judged twice. Only a token that sees every group may split: GitLab lists to others only the
 * subgroups they are members of, and a partition missed would be projects never judged.
 */
export async function startGroupListing(
  gitlab: GitLabClient,
  group: number,
  judgePage: (items: Project[]) => void,
  opts: { seesAllGroups: boolean; signal: AbortSignal },
): Promise<Pages[]> {
  const { signal } = opts;
  const whole = gitlab.listGroupProjects(group, { signal }).pages();
  const first = await whole.next();
  if (first.done) return [];
  judgePage(first.value.items);
  const { meta, checkpoint } = first.value;
  if (checkpoint.next === null || isSmall(meta.total) || !opts.seesAllGroups) return [{ [Symbol.asyncIterator]: () => whole }];
  await whole.return(undefined);
  const judged = new Set(first.value.items.map((p) => p.id));
  const unjudged = async function* (listing: Listing<Project>): AsyncGenerator<Page<Project>> {
    for await (const page of listing.pages()) yield { ...page, items: page.items.filter((p) => !judged.has(p.id)) };
  };
  const children = await gitlab.listSubgroups(group, { signal }).collect();
  return [gitlab.listGroupProjects(group, { signal }, false), ...children.map((child) => gitlab.listGroupProjects(child.id, { signal }))].map(unjudged);
}

/**
 * The whole instance, by keyset on id: one listing for a small instance; otherwise `ranges` id ranges
 * listed side by side (id_after/id_before), each following its own links, the last one open-ended so a
 * project created meanwhile is still seen. One tiny request finds the newest id and the count.
 */
export async function instanceRanges(gitlab: GitLabClient, ranges: number, signal: AbortSignal): Promise<Pages[]> {
  const pages = (idAfter?: number, idBefore?: number) => gitlab.listProjects({ idAfter, idBefore, list: { signal } }).pages();
  const newest = await gitlab.newestProject(signal);
  if (!newest || isSmall(newest.total)) return [pages()];
  const step = Math.ceil(newest.id / ranges);
  return Array.from({ length: ranges }, (_, i) => pages(i === 0 ? undefined : i * step, i === ranges - 1 ? undefined : (i + 1) * step + 1));
}

function isSmall(total: number | "unknown" | undefined): boolean {
  return typeof total === "number" && total <= PARTITION_ABOVE;
}

/**
 * The namespace id of each scope group (a group's namespace id is its group id), or `undefined` for
 * the whole instance when the policy names no scope. Groups inside another scope group are skipped so
 * no project is listed twice.
 */
export async function scopeGroupIds(gitlab: GitLabClient, policy: Policy, warnings: string[], signal?: AbortSignal): Promise<(number | undefined)[]> {
  const groups = scopeGroups(policy);
  if (groups === undefined) return [undefined];
  if (groups.length === 0) warnings.push("the policy has no gitlab section: no project is governed");
  // GitLab paths are case-insensitive: acme and ACME are one group, and acme/mobile is inside acme.
  const paths = [...new Map(groups.map((g) => [g.toLowerCase(), g])).values()];
  const outermost = paths.filter((g) => !paths.some((other) => g.toLowerCase().startsWith(`${other.toLowerCase()}/`)));
  const ids = await Promise.all(
    outermost.map(async (path) => {
      const namespace = await gitlab.getNamespace(path, signal).catch((err: unknown) => {
        throw err instanceof HttpError && err.status === 404
          ? new ScopeError(`gitlab.scope.groups: group "${path}" was not found, or the token cannot see it`)
          : err;
      });
      if (namespace.kind !== "group") throw new ScopeError(`gitlab.scope.groups: "${path}" is a user namespace, not a group`);
      return namespace.id;
    }),
  );
  // Two paths can still name one group (an old path GitLab redirects): list it once.
  return [...new Set(ids)];
}
