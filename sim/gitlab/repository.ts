import { createHash } from "node:crypto";
import { invalid, stringParam } from "./context.ts";
import type { Handler } from "./context.ts";
import type { SimProject } from "./dataset.ts";
import { notFound } from "./http.ts";
import { committedFile } from "./files.ts";
import { findProject } from "./projects.ts";
import { developersCanMerge, developersCanPush, isProtectedBranch, isProtectedTag } from "./protected-refs.ts";
import type { SimRepositories } from "./repository-store.ts";

/** Every project has the same tags and files; a `/` in a name must travel as %2F. */
export const TAGS = ["v1.0.0", "v1.1.0", "stable/2024.06"];
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

/** Content comes base64-encoded, as GitLab sends it; a project tests committed to answers from its commits (files.ts). */
export const getFile: Handler = (ctx) => {
  const project = findProject(ctx);
  const ref = stringParam(ctx, "ref");
  if (!ref) throw invalid("ref", "is missing");
  const filePath = ctx.path["file_path"]!;
  if (ctx.store.repositories.has(project)) return committedFile(ctx, project, filePath, ref);
  const render = FILES.get(filePath);
  if (!render || !hasRef(project, ref)) throw notFound("File");
  const content = Buffer.from(render(project, ref));
  const sha = commitSha(project, ref);
  return {
    status: 200,
    body: {
      file_name: filePath.slice(filePath.lastIndexOf("/") + 1),
      file_path: filePath,
      size: content.length,
      encoding: "base64",
      content: content.toString("base64"),
      ref,
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
  return {
    status: 200,
    body: {
      name,
      commit: { id: sha, short_id: sha.slice(0, 8) },
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
