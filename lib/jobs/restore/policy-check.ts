/**
 * Judges each share a restore would re-create by the current policy, as the next sweep will. Whoever
 * wrote the input (a file, a console event) chose every id, name and level in it: the policy is asked
 * with the paths GitLab gives for the ids now, the project's or sharing group's (read already) and the
 * invited group's (read here, once per group), never with the names the input gives. A share the
 * policy would remove again is skipped unless includeStray asks for it, so that a restore brings back
 * at most what the policy allows. So is one that only an exemption of all the subject's shares keeps
 * (no sharedWith, or one every group matches, `**`): an exemption says "leave these alone", not "any
 * share may be made here", and a share no run would ever remove is the worst an input could bring
 * (enforce never removes an exempt share, so an honest report lists one only where the exemption came later).
 */
import pMap from "p-map";
import { HttpError } from "../../gitlab/index.ts";
import { evaluateShare, forEveryInvitedGroup, type Policy } from "../../policy/index.ts";
import { errorText } from "../report/index.ts";
import { readGroup } from "../shares/kinds.ts";
import { subjectKey, type Subject } from "../shares/plan.ts";
import type { PolicyCheck, RestoreAction, RestoreOptions } from "./summary.ts";

/** The invited group's full path, or why it could not be read. */
type Invited = { path: string } | { error: string };

/**
 * Judges the planned actions in place. False when stopped before every invited group was read: then
 * nothing may be created. `subjects` are the reads of the projects and sharing groups, by subjectKey.
 */
export async function judgeByPolicy(planned: RestoreAction[], subjects: ReadonlyMap<string, Subject>, opts: RestoreOptions): Promise<boolean> {
  const { gitlab, signal } = opts;
  const invited = new Map<number, Invited>();
  await pMap(new Set(planned.map((a) => a.groupId)), async (id) => {
    if (signal?.aborted) return;
    try {
      const group = await readGroup(gitlab, id, signal);
      invited.set(id, group ? { path: group.full_path } : { error: `the invited group #${id} not found (deleted, or the token cannot see it): not restored` });
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof HttpError && err.status === 401) throw err;
      invited.set(id, { error: `reading the invited group #${id} failed: ${errorText(err)}` });
    }
  }, { concurrency: opts.concurrency ?? 4 });
  if (signal?.aborted) return false;

  const now = opts.now ?? new Date();
  // What the allow rules alone say, for a share only an exemption of its subject's every share keeps.
  const allowRules = withoutExemptions(opts.policy);
  for (const a of planned) {
    const group = invited.get(a.groupId)!;
    if ("error" in group) {
      Object.assign(a, { status: "failed", error: group.error });
      continue;
    }
    const subject = subjects.get(subjectKey(a))!;
    // The report names the invited group as GitLab calls it now: what a reviewer reads is what would be created.
    a.group = group.path;
    judge(a, subject.path, { kind: a.kind, target: subject.path, groupPath: group.path, accessLevel: a.accessLevel, expiresAt: a.expiresAt, memberRoleId: a.memberRoleId }, opts, allowRules, now);
    // But not where nothing is to be created: an input naming any group's id (under any name, or its right one
    // to check a guess) would have a dry run tell its path, a private group's too, read with the administrator's token.
    if (a.status === "skipped") unnamed(a, group.path);
  }
  return true;
}

/** Judges one share by the policy: allowed or exempt is restored; not allowed, skipped unless includeStray asks for it. */
function judge(a: RestoreAction, subject: string, share: Parameters<typeof evaluateShare>[1], opts: RestoreOptions, allowRules: Policy, now: Date): void {
  const verdict = evaluateShare(opts.policy, share, now);
  if (verdict.kind === "allowed" || verdict.kind === "exempt") {
    a.policy = { verdict: verdict.kind, rule: verdict.rule };
    const unexempt = verdict.kind === "exempt" && forEveryInvitedGroup(opts.policy.gitlab!.shares.exempt[verdict.index]!) ? evaluateShare(allowRules, share, now) : undefined;
    if (unexempt?.kind !== "stray") return;
    a.policy.unallowed = unexempt.reason;
    const why = `${verdict.rule} exempts every share of ${subject}, so no run would remove it again, but no allow rule allows it (${unexempt.reason})`;
    if (opts.includeStray) a.note = `${why}: included as includeStray asks, for good unless the exemption ends`;
    else Object.assign(a, { status: "skipped", note: `${why}: not restored; allow it in the policy, name the group in the exemption's sharedWith, or ask for it anyway with --include-stray ("includeStray": true from the console)` });
    return;
  }
  const reason = verdict.kind === "stray" ? verdict.reason : `its scope does not include ${subject}`;
  a.policy = { verdict: verdict.kind, reason };
  const why = `the policy does not allow it (${reason})`;
  // Outside the scope no sweep, watch or event run ever looks: a share made there would stay for good.
  if (verdict.kind === "out-of-scope") Object.assign(a, { status: "skipped", note: `${why}: not restored, even with --include-stray, as no run would ever remove it again` });
  else if (opts.includeStray) a.note = `${why}: included as includeStray asks; a later run removes it again (as gitlab.shares.onStray says) unless the policy changes first`;
  else Object.assign(a, { status: "skipped", note: `${why}: not restored; change the policy first, or ask for it anyway with --include-stray ("includeStray": true from the console)` });
}

/** A skipped share's invited group named by its id alone, in its name and in what its judging says. */
function unnamed(a: RestoreAction, path: string): void {
  const id = `#${a.groupId}`;
  const hidden = (text: string) => text.split(path).join(id);
  a.group = `group ${id}`;
  if (a.note !== undefined) a.note = hidden(a.note);
  const check = a.policy;
  if (check && "reason" in check) check.reason = hidden(check.reason);
  else if (check?.unallowed !== undefined) check.unallowed = hidden(check.unallowed);
}

export function allows(check: PolicyCheck | undefined): boolean {
  return check?.verdict === "allowed" || (check?.verdict === "exempt" && check.unallowed === undefined);
}

/** The policy without its exemptions: what its allow rules alone say of a share. */
function withoutExemptions(policy: Policy): Policy {
  return { ...policy, gitlab: { ...policy.gitlab!, shares: { ...policy.gitlab!.shares, exempt: [] } } };
}
