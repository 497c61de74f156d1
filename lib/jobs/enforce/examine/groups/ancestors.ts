/** The scope groups' ancestors, whose shares reach into the scope ungoverned: reported, never removed. */
import pMap from "p-map";
import { accessLevelName, inScope } from "../../../../policy/index.ts";
import { errorText } from "../../../report/index.ts";
import { readGroup } from "../../../shares/kinds.ts";
import type { Examination } from "../context.ts";
import { PRIORITY } from "../slots.ts";
import { isRunFailure } from "../unexamined.ts";
import type { ScopeRoot } from "../work.ts";

/**
 * A share made by an ancestor of a scope group reaches into the scope (a subgroup inherits its
 * parent's shares) but is outside it, so it is not governed: each is reported as a warning, as is an
 * ancestor GitLab fails to answer for. The ancestors are few — the parent chain of each scope group —
 * and each costs one detail.
 */
export async function ancestorShares(exam: Examination, roots: readonly ScopeRoot[]): Promise<string[]> {
  const ancestors = new Map<string, { path: string; scope: string }>();
  for (const root of roots) {
    const segments = root.path.split("/");
    for (let n = 1; n < segments.length; n++) {
      const path = segments.slice(0, n).join("/");
      if (!ancestors.has(path.toLowerCase()) && !inScope(exam.policy, path)) ancestors.set(path.toLowerCase(), { path, scope: root.path });
    }
  }
  const warnings = await pMap(
    ancestors.values(),
    async ({ path, scope }) => {
      let group;
      try {
        group = await exam.slots(() => readGroup(exam.gitlab, path, exam.signal), PRIORITY.detail);
      } catch (err) {
        // What is read here is only reported, never governed: an ancestor GitLab fails on every time
        // must not fail every run of the scope below it. The run's own failures still end it.
        if (isRunFailure(err, exam.signal)) throw err;
        return [`${path}, above scope group ${scope}, could not be read (${errorText(err)}): the shares it makes reach into the scope and are unknown; the next run reads it again`];
      }
      if (!group) return [`${path}, above scope group ${scope}, could not be read (not found, or the token cannot see it): the shares it makes reach into the scope and are unknown`];
      return group.shared_with_groups.map(
        (share) =>
          `${group.full_path}, above scope group ${scope} and outside the scope, is shared with ${share.group_full_path} as ${accessLevelName(share.group_access_level)}` +
          `${share.expires_at ? ` until ${share.expires_at}` : ""}: that share reaches into ${scope} and is not governed`,
      );
    },
    { concurrency: exam.concurrency },
  );
  return warnings.flat();
}
