/**
 * Reading one repository file (`GET /projects/:id/repository/files/:file_path?ref=`): the project's
 * path, the file's path and the ref are encoded by fillPath/serializeQuery (`/` as %2F), and the
 * base64 content is decoded and checked against the answer's own size and SHA-256.
 */
import { createHash } from "node:crypto";
import { redactThenCut } from "../redact/index.ts";
import type { GitLabApi } from "./api.ts";

/** GitLab resolves this ref to the project's default branch (its `HEAD`). */
export const DEFAULT_BRANCH_REF = "HEAD";

/** The files API's JSON answer (GitLab's lib/api/files.rb `blob_data` plus `content`). */
interface FileAnswer {
  file_path?: unknown;
  size?: unknown;
  encoding?: unknown;
  content?: unknown;
  content_sha256?: unknown;
  ref?: unknown;
  blob_id?: unknown;
  commit_id?: unknown;
  last_commit_id?: unknown;
}

export interface FileAtRef {
  /** The file's bytes, decoded and checked. */
  bytes: Buffer;
  /** The file's content (git blob id): unchanged content, unchanged id. */
  blobId: string;
  /** The commit the ref pointed at when read. */
  commitId: string;
  /** The last commit that changed the file. */
  lastCommitId: string;
}

/** An answer that is not a file Warden can use; the message says what is wrong with it. */
export class FileContentError extends Error {
  override name = "FileContentError";
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export async function readRepositoryFile(
  gitlab: Pick<GitLabApi, "get">,
  at: { project: string | number; path: string; ref: string; maxBytes: number },
  signal?: AbortSignal,
): Promise<FileAtRef> {
  const answer = await gitlab.get<FileAnswer>("/projects/:id/repository/files/:file_path", { id: at.project, file_path: at.path }, { query: { ref: at.ref }, signal });
  const size = answer.size;
  // Refused by its declared size before its content is decoded: a policy is kilobytes.
  if (typeof size === "number" && size > at.maxBytes) throw new FileContentError(`the file is ${size} bytes, more than the limit of ${at.maxBytes}`);
  // The server's text, quoted redacted and then cut: a hostile answer's field may be megabytes.
  if (answer.encoding !== "base64" || typeof answer.content !== "string") throw new FileContentError(`the answer carries no base64 content (encoding ${redactThenCut(JSON.stringify(answer.encoding ?? null), 60)})`);
  if (!BASE64.test(answer.content)) throw new FileContentError("the answer's content is not valid base64");
  const bytes = Buffer.from(answer.content, "base64");
  if (bytes.length > at.maxBytes) throw new FileContentError(`the file is ${bytes.length} bytes, more than the limit of ${at.maxBytes}`);
  if (typeof size === "number" && size !== bytes.length) throw new FileContentError(`the content decodes to ${bytes.length} bytes, the answer says ${size}`);
  if (typeof answer.content_sha256 === "string" && answer.content_sha256 !== createHash("sha256").update(bytes).digest("hex")) {
    throw new FileContentError("the content does not match the answer's content_sha256");
  }
  const id = (name: "blob_id" | "commit_id" | "last_commit_id"): string => {
    const value = answer[name];
    if (typeof value !== "string" || !HEX_ID.test(value)) throw new FileContentError(`the answer's ${name} is not a git object id`);
    return value;
  };
  return { bytes, blobId: id("blob_id"), commitId: id("commit_id"), lastCommitId: id("last_commit_id") };
}

/**
 * Whether `commit` is in `ref`'s history: their merge base (`GET /projects/:id/repository/merge_base`,
 * one request, nothing to page) is the commit itself. GitLab answers 404 when they share no history,
 * 400 "Could not find ref" for a ref or commit the project does not have (an HttpError to the caller).
 */
export async function commitIsOn(gitlab: Pick<GitLabApi, "call">, at: { project: string | number; commit: string; ref: string }, signal?: AbortSignal): Promise<boolean> {
  const { status, data } = await gitlab.call<{ id?: unknown }>("GET", "/projects/:id/repository/merge_base", { id: at.project }, { query: { refs: [at.commit, at.ref] }, accept: [404], signal });
  return status === 200 && typeof data?.id === "string" && data.id === at.commit;
}
