import { createHash } from "node:crypto";
import { invalid, stringParam } from "./context.ts";
import type { Handler } from "./context.ts";
import type { SimProject } from "./dataset.ts";
import { notFound } from "./http.ts";
import { committedFile } from "./files.ts";
import { findProject } from "./projects.ts";
import { developersCanMerge, developersCanPush, isProtectedBranch, isProtectedTag } from "./protected-refs.ts";
import { blobId, type SimRepositories } from "./repository-store.ts";

/** Every project has the same tags and files; a `/` in a name must travel as %2F. */
const TAGS = ["v1.0.0", "v1.1.0", "stable/2024.06"];
const FILES = new Map<string, (p: SimProject, ref: string) => string>([
  ["README.md", (p, ref) => `# ${p.name}\n\n${p.path_with_namespace} at ${ref}.\n`],
  ["src/app.ts", (p) => `export const project = ${JSON.stringify(p.path_with_namespace)};\n`],
  [".gitlab-ci.yml", () => "test:\n  script: npm test\n"],
  ["docs/c++ notes.md", () => "Paths may hold spaces and plus signs.\n"],
]);

export const hasRef = (project: SimProject, ref: string): boolean => project.branches.includes(ref) || TAGS.includes(ref);
export const isTag = (ref: string): boolean => TAGS.includes(ref);

/** A stable fake commit id per project and ref. */
export const commitSha = (project: SimProject, ref: string): string => createHash("sha1").update(`${project.id}:${ref}`).digest("hex");

/** The commit a ref points at now: a branch tests committed to moves with each commit; any other ref keeps its stable id. */
export const headSha = (repositories: SimRepositories, project: SimProject, ref: string): string => repositories.resolve(project, ref)?.id ?? commitSha(project, ref);

/** The ref whose stable commit `ref` names, or `ref` itself where it is a branch or tag: git takes either. */
export const refNamed = (project: SimProject, ref: string): string | undefined =>
  hasRef(project, ref) ? ref : [...project.branches, ...TAGS].find((r) => commitSha(project, r) === ref);

/**
 * A file of a project tests did not commit to, at one of its refs: the same few for every project, its CI
 * file wherever its settings (ci_config_path) say it is.
 */
export function stableFile(project: SimProject, ref: string, filePath: string): string | undefined {
  const path = filePath === (project.ci_config_path || ".gitlab-ci.yml") ? ".gitlab-ci.yml" : filePath;
  return FILES.get(path)?.(project, ref);
}

/** Content comes base64-encoded, as GitLab sends it; a commit tests made answers from its files (files.ts). */
export const getFile: Handler = (ctx) => {
  const project = findProject(ctx);
  const asked = stringParam(ctx, "ref");
  if (!asked) throw invalid("ref", "is missing");
  const filePath = ctx.path["file_path"]!;
  const ref = refNamed(project, asked);
  // A project tests committed to answers from its commits, and from its stable refs where it has no commit of theirs (a branch they did not commit to).
  const repositories = ctx.store.repositories;
  if (repositories.has(project) && (repositories.resolve(project, asked) !== undefined || ref === undefined)) return committedFile(ctx, project, filePath, asked);
  const text = ref === undefined ? undefined : stableFile(project, ref, filePath);
  if (text === undefined || ref === undefined) throw notFound("File");
  const content = Buffer.from(text);
  const sha = commitSha(project, ref);
  return {
    status: 200,
    body: {
      file_name: filePath.slice(filePath.lastIndexOf("/") + 1),
      file_path: filePath,
      size: content.length,
      encoding: "base64",
      content: content.toString("base64"),
      content_sha256: createHash("sha256").update(content).digest("hex"),
      ref: asked,
      blob_id: blobId(content),
      commit_id: sha,
      last_commit_id: sha,
    },
  };
};

/** `protected`, `developers_can_push` and `developers_can_merge` from the project's protected-branch rules, wildcards included (protected-refs.ts). */
export const getBranch: Handler = (ctx) => {
  const project = findProject(ctx);
  const name = ctx.path["branch"]!;
  if (!project.branches.includes(name)) throw notFound("Branch");
  const sha = headSha(ctx.store.repositories, project, name);
  // GitLab's branch answer carries its head commit whole: its message too (a commit through the API keeps its own).
  const message = ctx.store.repositories.resolve(project, name)?.message ?? "";
  return {
    status: 200,
    body: {
      name,
      commit: { id: sha, short_id: sha.slice(0, 8), title: message.split("\n")[0], message },
      merged: false,
      protected: isProtectedBranch(project, name),
      developers_can_push: developersCanPush(project, name),
      developers_can_merge: developersCanMerge(project, name),
      default: name === project.default_branch,
    },
  };
};

/** `protected` from the protected-tag rules, on an instance recent enough to send it (RequestContext.tagProtectedField). */
export const getTag: Handler = (ctx) => {
  const project = findProject(ctx);
  const name = ctx.path["tag"]!;
  if (!TAGS.includes(name)) throw notFound("Tag");
  const sha = commitSha(project, name);
  const body = { name, message: "", target: sha, commit: { id: sha, short_id: sha.slice(0, 8) }, release: null };
  return { status: 200, body: ctx.tagProtectedField ? { ...body, protected: isProtectedTag(project, name) } : body };
};
