/**
 * Enforce's first phase, the step "begin": the token check and the scope (with a targeted run's
 * targets), ending on the examination's first frontier.
 */
import { tokenUser } from "../../../gitlab/index.ts";
import { isTerminal } from "../../../http/index.ts";
import { within } from "../../../policy/index.ts";
import { errorText } from "../../report/index.ts";
import { awaitedLater } from "../../awaited-later.ts";
import { beginExamination } from "../examine/examiners.ts";
import { scopeRoots } from "../examine/scope.ts";
import { findTargets, targetedWarning, targetedWork, type FoundTarget, type UnreadTarget } from "../examine/targets.ts";
import type { UnexaminedPart } from "../examine/unexamined.ts";
import type { ExaminationWork } from "../examine/work.ts";
import type { Run, Said } from "./run.ts";

export interface Begun extends Said {
  /** Epoch ms: the report's startedAt, and what the run's time limit counts from. */
  startedAt: number;
  /** The run's time, as every policy judgement in it sees it. */
  now: Date;
  /** When the whole run must stop (epoch ms): startedAt plus the run's limit. */
  runEnd: number;
  /** The token is an administrator or auditor: GitLab lists every group's shares to it. */
  seesAllGroups: boolean;
  /** The token is an administrator: the instance's audit events are readable. */
  admin: boolean;
  /** The token's user id: whose issues are Warden's notices (lib/jobs/notices/read.ts), without a second GET /user. */
  userId: number | undefined;
  frontier: ExaminationWork[];
  /** Targets by id that could not be read, left out of the run (examine/targets.ts). */
  unreadTargets: UnreadTarget[];
  /** Scope groups GitLab failed to look up, left out of a run over the whole scope (examine/scope.ts). */
  unexamined: UnexaminedPart[];
}

/** A scope group GitLab failed to look up (scopeRoots' `unresolved`). */
type Unresolved = { path: string; error: string; lasting: boolean };

export async function begin(run: Run): Promise<Begun> {
  const { opts: { gitlab }, policy, targets, listConcurrency: concurrency, inStep } = run;
  const begun = await run.steps.step("begin", () =>
    run.measured(async () => {
      const startedAt = Date.now();
      const now = (run.opts.now ?? new Date()).toISOString();
      const warnings: string[] = [];
      const unread: UnreadTarget[] = [];
      // The token check and the scope look-up go out together (reads: after a refused token the Lambda
      // may read a rotated secret and run again, functions/shared/runs/run-job.ts); the token's error comes first.
      const unresolved: Unresolved[] = [];
      const scope = awaitedLater(scopeRoots(gitlab, policy, inStep, (path, err) => unresolved.push({ path, error: errorText(err), lasting: isTerminal(err) })));
      const found = targets && awaitedLater(findTargets(gitlab, policy, targets, { concurrency, signal: inStep, readBy: run.opts.targetsReadBy }, warnings, unread));
      const { user, admin, auditor, notActingAsAdmin } = await tokenUser(gitlab, inStep);
      const seesAllGroups = admin || auditor;
      if (!seesAllGroups) {
        const who = notActingAsAdmin
          ? `the token's user (${user.username}) is an administrator, but the token acts as a plain user (${notActingAsAdmin}: with Admin Mode on, a token needs the admin_mode scope to act as one; give it that scope)`
          : `the token (${user.username}) is not an administrator or auditor`;
        warnings.push(
          `${who}: GitLab lists only the shares (of projects and of groups) with groups it can see, ` +
            "so shares with other groups were neither checked nor removed; it lists only the projects and groups it can see, so a private one " +
            "its user is not a member of was not examined at all (give the user Owner on each scope group: it then sees everything below them); " +
            "and GitLab removes a group's share only for a token with Owner on that group " +
            "(it answers success all the same: Warden reads the group again to tell)",
        );
      }
      const roots = await scope;
      const part = outsideUnresolved(await found, unresolved, unread, warnings);
      if (part) warnings.push(targetedWarning(part));
      // Only this invocation's examination takes them: the step records its frontier, not these reads.
      for (const target of part ?? []) if (target.kind === "project" && target.read) run.held.set(target.id, target.read);
      const frontier = part ? targetedWork(part, roots, (trees) => beginExamination(trees, seesAllGroups)) : beginExamination(roots, seesAllGroups);
      // A run over the whole scope names a scope group it could not look up as not examined (its id unknown: 0).
      const unexamined: UnexaminedPart[] = part ? [] : unresolved.map(({ path, error, lasting }) => ({ kind: "group", id: 0, path, error, lasting, projects: "not examined" }));
      return { startedAt, now, seesAllGroups, admin, userId: user.id, warnings, frontier, ...(unread.length ? { unreadTargets: unread } : {}), ...(unexamined.length ? { unexamined } : {}) };
    }),
  );
  // The step's result is JSON (a durable execution replays it): the time comes back as a string, and
  // `admin` and `userId` are absent from a step recorded before they were kept; `unreadTargets` whenever none failed.
  return {
    startedAt: begun.startedAt,
    now: new Date(begun.now),
    runEnd: run.opts.runEndAt ?? begun.startedAt + (run.opts.runLimitMs ?? Infinity),
    seesAllGroups: begun.seesAllGroups,
    admin: begun.admin === true,
    userId: begun.userId,
    frontier: begun.frontier,
    unreadTargets: begun.unreadTargets ?? [],
    unexamined: begun.unexamined ?? [],
    warnings: [...begun.warnings],
    stats: [begun.stats],
  };
}

/**
 * A targeted run's targets, but for those under a scope group GitLab failed to look up: its shares (which
 * reach them) cannot be judged, so they are left out as targets that could not be read, for the watch to
 * try again (lib/jobs/watch/retries.ts), and the others are examined.
 */
function outsideUnresolved(targets: FoundTarget[] | undefined, unresolved: readonly Unresolved[], unread: UnreadTarget[], warnings: string[]): FoundTarget[] | undefined {
  if (!targets || unresolved.length === 0) return targets;
  return targets.filter((target) => {
    const root = unresolved.find((u) => within(target.path, u.path));
    if (!root) return true;
    const error = `scope group ${root.path} could not be looked up (${root.error})`;
    unread.push({ target: `${target.kind}:${target.id}`, error, lasting: root.lasting });
    warnings.push(`target ${target.kind} ${target.id}: ${error}: not examined`);
    return false;
  });
}
