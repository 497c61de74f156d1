/**
 * A run limited to part of the scope (`warden enforce --target`, and a run for the subject of one
 * event): groups, each with its subtree or by itself, and projects. Each is checked against the scope
 * before any request, then found on GitLab; its examination is the full run's, narrowed: a group with
 * its subtree is examined as a scope root, a group by itself as its detail and its own projects, a
 * project by one read (projects/one.ts). Judging, guard, removal and report are the full run's.
 */
import pMap from "p-map";
import type { GitLabClient } from "../../../gitlab/index.ts";
import { isTerminal } from "../../../http/index.ts";
import { inScope, scopeGroups, within, type Policy } from "../../../policy/index.ts";
import { errorText } from "../../report/index.ts";
import type { HeldRead } from "./context.ts";
import { ScopeError } from "./scope.ts";
import type { ExaminationWork, ScopeRoot } from "./work.ts";

/**
 * What a run may be limited to. A bare path is what the CLI's --target takes: the group at that
 * path with its subtree, or else the project there. A group by itself (`subtree: false`) is its own
 * shares and its own projects' shares, not its subgroups'.
 */
export type EnforceTarget =
  | string
  | { kind: "group"; path: string; subtree: boolean }
  | { kind: "project"; path: string }
  // By id, as an event names its subject (GitLab takes an id wherever a path is taken): checked against
  // the scope once found, and left alone with a warning when outside it (an event is not bad input).
  | { kind: "group"; id: number; subtree: boolean }
  | { kind: "project"; id: number };

/**
 * A target as GitLab has it: its id, and its full path as GitLab spells it; a project's, with the
 * read that found it (its examination needs no other, projects/one.ts).
 */
export type FoundTarget = { kind: "group"; id: number; path: string; subtree: boolean } | { kind: "project"; id: number; path: string; read?: HeldRead };

/**
 * A target by id that could not be read (GitLab failed, not "not found"): left out of the run, so
 * that one subject GitLab cannot answer for never fails the others of a batch (the watch, lib/jobs/watch/).
 * `target` is "project:12" or "group:7"; `lasting`: another try would meet the same failure (a 4xx refusal).
 */
export interface UnreadTarget {
  target: string;
  error: string;
  lasting: boolean;
}

/** A target checked before any request: its path as written, less slashes at either end. */
type CheckedTarget = { kind?: "group" | "project"; path: string; subtree: boolean; given: string; byId?: boolean };

/** Each target's path, checked against the policy's scope before any request; every bad one named at once. */
export function checkTargets(policy: Policy, targets: readonly EnforceTarget[]): CheckedTarget[] {
  if (targets.length === 0) throw new ScopeError("targets: none given (leave targets out to examine the whole scope)");
  const scope = scopeGroups(policy);
  const checked = targets.map((target): CheckedTarget => {
    const subtree = typeof target === "string" || (target.kind === "group" && target.subtree);
    if (typeof target !== "string" && "id" in target) return { kind: target.kind, path: String(target.id), subtree, given: `${target.kind} ${target.id}`, byId: true };
    const { kind, path: given } = typeof target === "string" ? { kind: undefined, path: target } : target;
    return { ...(kind ? { kind } : {}), path: given.trim().replace(/^\/+|\/+$/g, ""), subtree, given };
  });
  const problems = checked.flatMap(({ path, given, byId }) => {
    if (byId) return Number.isSafeInteger(Number(path)) && Number(path) > 0 ? [] : [`target ${JSON.stringify(given)} is not a GitLab id (a positive integer)`];
    if (path === "" || path.split("/").includes("")) return [`target ${JSON.stringify(given)} is not a group or project path (a full path, e.g. acme/mobile)`];
    if (inScope(policy, path)) return [];
    return [`target ${JSON.stringify(given)} is outside the policy's scope (gitlab.scope.groups: ${scope?.join(", ")}): a target must be a scope group or lie under one`];
  });
  if (problems.length) throw new ScopeError(`${problems.join("; ")}; nothing was examined or changed`);
  return checked;
}

/**
 * Each target found on GitLab: a bare path is looked up as a group first (one GET /namespaces/:id),
 * then as a project (one GET /projects/:id). Checked against the scope again where GitLab has it at
 * another path (a project renamed or moved: its old path redirects); a target inside another is
 * dropped, as its examination holds it. Every target not found is named at once. A target by id
 * whose read fails (an event's subject: not bad input) is added to `unread` and left out, with a warning.
 */
export async function findTargets(gitlab: GitLabClient, policy: Policy, targets: readonly CheckedTarget[], reading: TargetReading, warnings: string[] = [], unread: UnreadTarget[] = []): Promise<FoundTarget[]> {
  const { concurrency, signal } = reading;
  const found = await pMap(targets, (target) => (target.byId ? findById(gitlab, target, reading) : findTarget(gitlab, target, signal)), { concurrency });
  const problems = found.flatMap((result, i) => {
    const { given, byId } = targets[i]!;
    if (typeof result === "object" && "lasting" in result) {
      unread.push(result);
      warnings.push(`target ${given}: reading it failed (${result.error}): not examined`);
      return [];
    }
    if (typeof result === "string" && byId) warnings.push(`target ${given}: ${result}: left alone`);
    if (typeof result === "string") return byId ? [] : [`target ${JSON.stringify(given)}: ${result}`];
    if (inScope(policy, result.path)) return [];
    // Not where: the report's readers (a Slack channel, the run history) may not see that project in GitLab.
    if (byId) warnings.push(`target ${given} is outside the policy's scope on GitLab: left alone`);
    return byId ? [] : [`target ${JSON.stringify(given)} is at ${result.path} on GitLab, outside the policy's scope`];
  });
  if (problems.length) throw new ScopeError(`${problems.join("; ")}; nothing was examined or changed`);
  const targetsFound = found.filter((result): result is FoundTarget => typeof result !== "string" && "path" in result && inScope(policy, result.path));
  const unique = [...new Map(targetsFound.map((t) => [`${t.kind} ${t.id} ${t.kind === "group" && t.subtree}`, t])).values()];
  return unique.filter((inner) => !unique.some((outer) => outer !== inner && holds(outer, inner)));
}

/** How targets are read: so many at once, until the run's signal, and those by id until `readBy` too. */
export interface TargetReading {
  concurrency: number;
  signal?: AbortSignal | undefined;
  readBy?: AbortSignal | undefined;
}

/**
 * A target by id found, or why not; a read that fails is the target's alone, unless the run was
 * stopped. A 401 too: begin() awaits the token check sent beside these reads, so a refused token fails
 * the run there, and a 401 for this path alone (a proxy's rule) must not hold back the batch's other
 * subjects (the watch met it at every poll). One not answered by `readBy` is the target's too, a
 * failure that may pass.
 */
async function findById(gitlab: GitLabClient, target: CheckedTarget, { signal, readBy }: TargetReading): Promise<FoundTarget | string | UnreadTarget> {
  try {
    return await findTarget(gitlab, target, readBy && signal ? AbortSignal.any([signal, readBy]) : (readBy ?? signal));
  } catch (err) {
    if (signal?.aborted) throw err;
    const error = readBy?.aborted ? `GitLab did not answer before the read deadline (${errorText(readBy.reason)})` : errorText(err);
    return { target: `${target.kind}:${target.path}`, error, lasting: !readBy?.aborted && isTerminal(err) };
  }
}

/** The target found, or why not. */
async function findTarget(gitlab: GitLabClient, { kind, path, subtree }: CheckedTarget, signal?: AbortSignal): Promise<FoundTarget | string> {
  if (kind !== "project") {
    const namespace = await gitlab.findNamespace(path, signal);
    if (namespace?.kind === "group") return { kind: "group", id: namespace.id, path: namespace.full_path, subtree };
    if (namespace) return "it is a user's namespace, not a group: give its projects one by one";
    if (kind === "group") return "GitLab has no group at this path (or the token cannot see it)";
  }
  const sentAt = Date.now();
  const project = await gitlab.findProject(path, signal);
  if (project) return { kind: "project", id: project.id, path: project.path_with_namespace, read: { project, sentAt } };
  return `GitLab has no ${kind === "project" ? "project" : "group or project"} at this path (or the token cannot see it)`;
}

/** Whether `outer`'s examination holds all of `inner`'s. */
function holds(outer: FoundTarget, inner: FoundTarget): boolean {
  if (outer.kind !== "group") return false;
  if (outer.subtree) return within(inner.path, outer.path);
  // A group by itself holds its own projects, whose paths are one segment longer.
  return inner.kind === "project" && within(inner.path, outer.path) && /^[^/]+$/.test(inner.path.slice(outer.path.length + 1));
}

/**
 * The examination's first work for the targets. A group with its subtree is a scope root narrowed
 * to that group: `begin` (the examiners' first work for scope roots) gives its work, less the reads
 * of its ancestors; the shares made above the scope groups that hold a target reach into it, and are
 * warned of as in a full run.
 */
export function targetedWork(targets: readonly FoundTarget[], roots: readonly ScopeRoot[] | undefined, begin: (roots: ScopeRoot[]) => ExaminationWork[]): ExaminationWork[] {
  const trees = targets.flatMap((t) => (t.kind === "group" && t.subtree ? [{ id: t.id, path: t.path }] : []));
  const work = trees.length ? begin(trees).filter((w) => !("ancestors" in w)) : [];
  for (const t of targets) {
    if (t.kind === "project") work.push({ kind: "project", list: { project: t.id }, path: t.path });
    else if (!t.subtree) work.push({ kind: "group", pending: [t.id] }, { kind: "project", list: { group: t.id, own: true }, path: t.path });
  }
  const above = roots?.filter((root) => targets.some((t) => within(t.path, root.path)));
  if (above?.length) work.push({ kind: "group", ancestors: above });
  return work;
}

/**
 * What the report says of a targeted run. Rules are not judged for matching nothing: a rule that
 * matched nothing in part of the scope may match elsewhere, so only a run over the whole scope can
 * tell (and a targeted apply is not refused for it).
 */
export function targetedWarning(targets: readonly FoundTarget[]): string {
  if (targets.length === 0) return "targeted run: no target was found in the policy's scope, so nothing was examined or changed";
  const named = targets.map((t) => `${t.path} (${t.kind === "project" ? "project" : t.subtree ? "group and its subgroups" : "group by itself"})`);
  return (
    `targeted run: only ${named.join(", ")} examined; the rest of the scope was neither judged nor changed, ` +
    "and a rule that matched nothing here is reported only when it names a path the instance does not have (only a run over the whole scope shows the rest)"
  );
}
