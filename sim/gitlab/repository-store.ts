/**
 * Repository contents a test commits to (policy files, say): per project, branches pointing at
 * commits, each commit a full tree of files. Ids are git's: a blob's is the SHA-1 of its header and
 * bytes, so equal content has an equal blob_id whichever commit carries it.
 */
import { createHash } from "node:crypto";
import type { SimProject } from "./dataset.ts";

export interface SimBlob {
  content: Buffer;
  blobId: string;
  /** The last commit that changed this path. */
  lastCommitId: string;
}

export interface SimCommit {
  id: string;
  files: ReadonlyMap<string, SimBlob>;
  /** The commit it was made on top of: a branch's history is its head's chain of parents. */
  parent?: SimCommit;
  /** Its message, as the commits API was given it (tests' own commits have none). */
  message?: string;
}

const sha1 = (data: Buffer | string) => createHash("sha1").update(data).digest("hex");
/** A blob's git object id: the SHA-1 of its header and bytes. */
export const blobId = (content: Buffer) => sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));

export class SimRepositories {
  /** Project id → branch name → head commit. */
  private readonly branches = new Map<number, Map<string, SimCommit>>();
  /** Project id → commit id → commit. */
  private readonly commits = new Map<number, Map<string, SimCommit>>();
  private made = 0;

  /**
   * Commits `files` (null deletes a path) on `branch`, the default branch unless named, on top of its
   * head, or for a new branch of `start`'s (default: the default branch's); a new branch is added to
   * the project's branches. The commit's id.
   */
  commit(project: SimProject, files: Record<string, string | Buffer | null>, branch = project.default_branch, start = project.default_branch, message?: string): string {
    const heads = this.branches.get(project.id) ?? new Map<string, SimCommit>();
    const parent = heads.get(branch) ?? heads.get(start);
    const id = sha1(`${project.id}:${branch}:${++this.made}:${parent?.id ?? ""}`);
    const tree = new Map(parent?.files);
    for (const [path, content] of Object.entries(files)) {
      if (content === null) tree.delete(path);
      else {
        const bytes = Buffer.from(content);
        tree.set(path, { content: bytes, blobId: blobId(bytes), lastCommitId: id });
      }
    }
    const commit: SimCommit = { id, files: tree, ...(parent ? { parent } : {}), ...(message === undefined ? {} : { message }) };
    heads.set(branch, commit);
    this.branches.set(project.id, heads);
    const byId = this.commits.get(project.id) ?? new Map<string, SimCommit>();
    byId.set(id, commit);
    this.commits.set(project.id, byId);
    if (!project.branches.includes(branch)) project.branches.push(branch);
    return id;
  }

  /** Whether tests committed to this project: then its files and refs are these alone. */
  has(project: SimProject): boolean {
    return this.branches.has(project.id);
  }

  /** A branch, `HEAD` (the default branch), or a commit id, as git resolves a ref. */
  resolve(project: SimProject, ref: string): SimCommit | undefined {
    const heads = this.branches.get(project.id);
    return heads?.get(ref === "HEAD" ? project.default_branch : ref) ?? this.commits.get(project.id)?.get(ref);
  }

  /** The best common ancestor of commits (each history is one chain of parents), as `git merge-base` finds it. */
  mergeBase(commits: readonly SimCommit[]): SimCommit | undefined {
    const ancestors = (commit: SimCommit) => {
      const chain: SimCommit[] = [];
      for (let at: SimCommit | undefined = commit; at; at = at.parent) chain.push(at);
      return chain;
    };
    const [first, ...rest] = commits.map(ancestors);
    return first?.find((candidate) => rest.every((chain) => chain.includes(candidate)));
  }
}
