/**
 * Whose policy a plan carries. A plan file is an artifact anyone with write access to it can edit, and
 * its checksum anyone can recompute: the policy text inside it says nothing by itself. Before apply
 * reads anything else, the plan's policy is compared with the one this run is given, as enforce takes
 * it (--policy, WARDEN_POLICY, ./warden.yaml, or --policy-project …):
 * - a policy file: the plan's policy text must have the file's SHA-256;
 * - a GitLab repository file: the plan must name the same project, path and ref (the project and the
 *   ref trusted as enforce trusts them to read a policy: TrustLocation), the file at the
 *   plan's commit must have the plan's SHA-256, that commit must be in the ref's history (so the
 *   text was committed where the repository's own protections reviewed it), and the file at the ref
 *   must still be that text (else the plan is stale: an older commit's policy was the ref's once).
 * With no policy here to compare with, the plan is refused, unless WARDEN_PLAN_KEY verified its
 * signature (the key's holder wrote it, policy and all).
 * The policy apply judges and reports by (its report's `policy`, every audit line's) is then the one
 * checked: where an unsigned plan says its policy came from is the editor's word, and only its text is
 * compared.
 */
import { createHash } from "node:crypto";
import { commitIsOn, DEFAULT_BRANCH_REF, FileContentError, HttpError, readRepositoryFile, type GitLabClient } from "../../gitlab/index.ts";
import { MAX_POLICY_BYTES, type Policy, type PolicySource } from "../../policy/index.ts";
import { escapeControls } from "../escape.ts";
import { PlanFileError, type PlanFile } from "../shares/plan-file.ts";

/** The policy this run was given to compare the plan's with. */
export type GivenPolicy =
  | { kind: "file"; policy: Policy }
  | { kind: "gitlab"; project: string; path: string; ref?: string; allowUnprotectedRef?: boolean }
  /** Nothing given, and no ./warden.yaml: `looked` says where it was looked for. */
  | { kind: "none"; looked: string };

/**
 * The given repository location as every read of a repository policy trusts it (lib/config's
 * trustedLocation, which the front end passes in: this layer does not import lib/config): the
 * project's id, the ref's name and the commit it points at. Throws, naming why, when the project or
 * the ref may not be trusted (a path that moved, a ref that is not protected).
 */
export type TrustLocation = (given: Extract<GivenPolicy, { kind: "gitlab" }>, signal?: AbortSignal) => Promise<{ projectId: number; name: string; commitId: string }>;

/**
 * `read` is readPlanFile's. Throws PlanFileError naming the cause and the fix; returns the policy to judge
 * by, and a warning when the plan's policy stands on its signature alone.
 */
export async function checkPlanPolicy(
  gitlab: GitLabClient,
  read: { plan: PlanFile; policy: Policy },
  given: GivenPolicy,
  opts: { file: string; signed: boolean; trust: TrustLocation; signal?: AbortSignal },
): Promise<{ policy: Policy; note?: string }> {
  const { file, signed, signal } = opts;
  const recorded = read.plan.policy;
  if (given.kind === "none") {
    if (signed) return { policy: read.policy, note: `the plan's policy was not compared with a policy here (no --policy, --policy-project or ${given.looked}): its signature (WARDEN_PLAN_KEY) vouches for it` };
    throw new PlanFileError(
      `${file}: its policy cannot be checked: there is no policy here to compare it with (no --policy, --policy-project or ${given.looked}), and a plan file's policy can be edited with it: ` +
        "give the policy the plan was made with (--policy FILE, or --policy-project PROJECT with --policy-path and --policy-ref as enforce took them), or sign plans with WARDEN_PLAN_KEY",
    );
  }
  if (given.kind === "file") {
    const { sha256, path } = given.policy.source as { sha256: string; path: string };
    if (sha256 !== recorded.sha256) throw differs(file, `${path} (SHA-256 ${sha256.slice(0, 12)}…, the plan's ${recorded.sha256.slice(0, 12)}…)`);
    // The same text, named as the file it was read from.
    return { policy: given.policy };
  }
  const where = `${given.project}:${given.path}`;
  if (recorded.source !== "gitlab" || recorded.project.toLowerCase() !== given.project.toLowerCase() || recorded.path !== given.path) {
    throw differs(file, `${where} (the plan's is ${recorded.source === "gitlab" ? `${recorded.project}:${recorded.path}` : `the file ${recorded.path}`})`);
  }
  try {
    // The project and the ref as enforce would trust them to read the policy (a path that moved, a ref
    // that is not protected, or one Developers may push to, is refused here as there).
    const trusted = await opts.trust(given, signal).catch((err: unknown) => {
      if (err instanceof HttpError || err instanceof FileContentError) throw err;
      // lib/config's errors, told apart by name (this layer does not import lib/config).
      if (err instanceof Error && err.name === "PolicyRefMissingError") throw differs(file, `${where}: GitLab has no such ref (${given.ref ?? DEFAULT_BRANCH_REF})`);
      if (err instanceof Error && err.name === "PolicyTrustError") throw new PlanFileError(`${file}: its policy cannot be checked against ${where}: not trusted: ${quoted(err)}; nothing was applied`);
      throw err;
    });
    const { projectId: project, name: ref } = trusted;
    if (recorded.ref !== ref) throw differs(file, `${where} at ${ref} (the plan's was read at ${recorded.ref})`);
    // The project as GitLab names it now: a plan naming another (an edit) would have its apply's report name that one.
    if (recorded.projectId !== undefined && recorded.projectId !== project) throw differs(file, `${where}, project ${project} (the plan's names project ${recorded.projectId})`);
    const at = await readRepositoryFile(gitlab, { project, path: given.path, ref: recorded.commitId, maxBytes: MAX_POLICY_BYTES }, signal);
    if (sha256Of(at.bytes) !== recorded.sha256) throw differs(file, `${where} at commit ${recorded.commitId.slice(0, 12)}, whose file is not the plan's policy text`);
    if (!(await commitIsOn(gitlab, { project, commit: recorded.commitId, ref: trusted.commitId }, signal))) {
      throw differs(file, `${where}: commit ${recorded.commitId.slice(0, 12)} is not on ${ref}, so the policy it holds was never ${ref}'s`);
    }
    // Every older commit is on the ref too, and its policy was the ref's once: a plan is judged by the
    // policy the ref holds now, or it is stale (the one way to bring back a policy since changed).
    const now = await readRepositoryFile(gitlab, { project, path: given.path, ref: trusted.commitId, maxBytes: MAX_POLICY_BYTES }, signal);
    if (sha256Of(now.bytes) !== recorded.sha256) {
      throw new PlanFileError(
        `${file}: its policy (${where} at commit ${recorded.commitId.slice(0, 12)}) is no longer ${ref}'s policy: the file at ${ref} (commit ${trusted.commitId.slice(0, 12)}) has changed since; ` +
          "nothing was applied: plan again with the policy as it is now, and review that plan",
      );
    }
    const source: PolicySource = { source: "gitlab", project: given.project, projectId: project, path: given.path, ref, commitId: recorded.commitId, sha256: recorded.sha256 };
    return { policy: { ...read.policy, source } };
  } catch (err) {
    if (err instanceof PlanFileError) throw err;
    if (err instanceof HttpError && (err.status === 404 || err.status === 400)) throw differs(file, `${where}: GitLab has no such file, ref or commit (${err.status})`);
    if (err instanceof FileContentError) throw differs(file, `${where}: ${quoted(err)}`);
    throw new PlanFileError(`${file}: its policy could not be checked against ${where} (${quoted(err)}); nothing was applied: run again once GitLab answers`);
  }
}

/** An error's message inside a refusal: it may quote GitLab, whose newline must not start a line of the refusal. */
function quoted(err: unknown): string {
  return escapeControls((err as Error).message);
}

function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function differs(file: string, what: string): PlanFileError {
  return new PlanFileError(`${file}: its policy is not the policy given here, ${what}: nothing was applied; the plan was made with another policy, or edited: plan again with this policy, and review that plan`);
}
