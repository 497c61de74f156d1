/**
 * `GET` (and `HEAD`) `/projects/:id/repository/files/:file_path?ref=` from what tests committed
 * (repository-store.ts), as GitLab's lib/api/files.rb answers: the caller must read code (Reporter or
 * above on a project with members, else 403), an unknown ref is "404 Commit Not Found", a path not in
 * it "404 File Not Found"; `ref` is echoed as sent, and the fields also travel as X-Gitlab-* headers.
 */
import { createHash } from "node:crypto";
import type { RequestContext } from "./context.ts";
import { ACCESS, type SimProject } from "./dataset.ts";
import { apiError, notFound, type Reply } from "./http.ts";

export function committedFile(ctx: RequestContext, project: SimProject, filePath: string, ref: string): Reply {
  const level = project.members && !ctx.caller?.is_admin ? (project.members[ctx.caller?.username ?? ""] ?? 0) : ACCESS.owner;
  if (level < ACCESS.reporter) throw apiError(403, "403 Forbidden");
  const commit = ctx.store.repositories.resolve(project, ref);
  if (!commit) throw notFound("Commit");
  const blob = commit.files.get(filePath);
  if (!blob) throw notFound("File");
  const data = {
    file_name: filePath.slice(filePath.lastIndexOf("/") + 1),
    file_path: filePath,
    size: blob.content.length,
    encoding: "base64",
    content_sha256: createHash("sha256").update(blob.content).digest("hex"),
    ref,
    blob_id: blob.blobId,
    commit_id: commit.id,
    last_commit_id: blob.lastCommitId,
    execute_filemode: false,
  };
  const headers = Object.fromEntries(Object.entries(data).map(([k, v]) => [`x-gitlab-${k.replaceAll("_", "-")}`, String(v)]));
  return { status: 200, headers, body: ctx.method === "HEAD" ? undefined : { ...data, content: blob.content.toString("base64") } };
}
