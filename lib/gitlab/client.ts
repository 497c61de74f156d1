/**
 * Typed GitLab REST v4 calls. Every request goes through lib/http (one client per run) and every
 * listing through lib/paging; nothing here loops over pages or retries by itself.
 */
import { GitLabApi, GROUP_DETAIL } from "./api.ts";
import { gitlabOffset, Listing, type ListOptions } from "../paging/index.ts";
import { fillPath, type PathParams, type Query } from "./encode.ts";
import { groupDetail, namespaceAnswer, replaced, userAnswer } from "./answer-shapes.ts";
import { ALREADY_SHARED, shareBody, type NewShare, type ShareOutcome, type UnshareOutcome } from "./shares.ts";
import type { Branch, CurrentUser, Group, GroupDetail, Issue, Namespace, Note, Pipeline, Project, ProtectedTag, RepositoryFile, Tag, Visibility } from "./types.ts";

export class GitLabClient extends GitLabApi {
  async currentUser(signal?: AbortSignal): Promise<CurrentUser> {
    return userAnswer(await this.get("/user", {}, { signal }));
  }

  /** GitLab's status for a read only a token acting as an administrator may make (token-user.ts): 200, 403 or 404. */
  async adminReadStatus(signal?: AbortSignal): Promise<number> {
    return (await this.call("GET", "/application/statistics", {}, { accept: [403, 404], signal })).status;
  }

  /** Every project the token can see, by keyset on id (no offset limit, runtime independent of size). */
  listProjects(call: { idAfter?: number; idBefore?: number; query?: Query; list?: ListOptions } = {}): Listing<Project> {
    return this.list("/projects", {}, {
      query: { ...call.query, id_after: call.idAfter, id_before: call.idBefore },
      order: { orderBy: "id", sort: "asc" },
      list: call.list,
    });
  }

  /** The newest project's id and how many projects the token sees ("unknown" above 10,000): one tiny page. */
  async newestProject(signal?: AbortSignal): Promise<{ id: number; total: number | "unknown" } | undefined> {
    const { data, response } = await this.call<Project[]>("GET", "/projects", {}, { query: { order_by: "id", sort: "desc", per_page: 1, simple: true }, signal });
    const total = response.headers["x-total"] ?? "";
    return data[0] && { id: data[0].id, total: /^\d+$/.test(total) ? Number(total) : "unknown" };
  }

  /**
   * A group's own projects, subgroups included unless told otherwise, by id (ascending unless told
   * otherwise: GitLab's default order is by creation, newest first). `with_shared=false` because
   * GitLab's default (true) also returns projects shared *into* the group, which belong to someone
   * else's scope.
   */
  listGroupProjects(
    group: string | number,
    list?: ListOptions,
    opts: { includeSubgroups?: boolean; orderBy?: "id" | "updated_at"; sort?: "asc" | "desc"; visibility?: Visibility } = {},
  ): Listing<Project> {
    const { includeSubgroups = true, orderBy = "id", sort = "asc", visibility } = opts;
    return this.list("/groups/:id/projects", { id: group }, { query: { include_subgroups: includeSubgroups, with_shared: false, visibility }, order: { orderBy, sort }, list });
  }

  /** Direct child groups. */
  listSubgroups(group: string | number, list?: ListOptions): Listing<Group> {
    return this.list("/groups/:id/subgroups", { id: group }, { list });
  }

  /** By id or full path; a renamed project's old path is followed to its new address (301). */
  getProject(project: string | number, signal?: AbortSignal): Promise<Project> {
    return this.get("/projects/:id", { id: project }, { signal });
  }

  listGroups(query?: Query, list?: ListOptions): Listing<Group> {
    return this.list("/groups", {}, { query, list });
  }

  /** The detail, with the group's shares; `with_projects=false`, or GitLab embeds up to 200 projects. */
  async getGroup(group: string | number, signal?: AbortSignal): Promise<GroupDetail> {
    return groupDetail(await this.get(GROUP_DETAIL, { id: group }, { query: { with_projects: false }, signal }), group);
  }

  /** The detail with up to 100 of the group's own projects (GroupDetail.projects), and the answer's `Date`. */
  async getGroupWithProjects(group: number, signal?: AbortSignal): Promise<{ detail: GroupDetail; date?: string }> {
    const { data, response } = await this.call<unknown>("GET", GROUP_DETAIL, { id: group }, { query: { with_projects: true }, signal });
    const date = response.headers["date"];
    return { detail: groupDetail(data, group), ...(date ? { date } : {}) };
  }

  /** `oldestFirst`: by id ascending (GitLab's default is by name). */
  listDescendantGroups(group: string | number, list?: ListOptions, oldestFirst = false): Listing<Group> {
    return this.list("/groups/:id/descendant_groups", { id: group }, { list, ...(oldestFirst ? { order: { orderBy: "id", sort: "asc" } as const } : {}) });
  }

  listNamespaces(query?: Query, list?: ListOptions): Listing<Namespace> {
    return this.list("/namespaces", {}, { query, list });
  }

  async getNamespace(namespace: string | number, signal?: AbortSignal): Promise<Namespace> {
    return namespaceAnswer(await this.get("/namespaces/:id", { id: namespace }, { signal }), namespace);
  }

  /** The namespace (a group's or a user's) at this full path, or undefined on GitLab's "404 Namespace Not Found". */
  async findNamespace(path: string, signal?: AbortSignal): Promise<Namespace | undefined> {
    const found = await this.find("/namespaces/:id", { id: path }, /namespace not found/i, signal);
    return found === undefined ? undefined : namespaceAnswer(found, path);
  }

  /** The project at this full path, or undefined on GitLab's "404 Project Not Found". */
  findProject(path: string, signal?: AbortSignal): Promise<Project | undefined> {
    return this.find("/projects/:id", { id: path }, /project not found/i, signal);
  }

  unshareProject(project: number | string, groupId: number, signal?: AbortSignal): Promise<UnshareOutcome> {
    return this.unshare("/projects/:id/share/:group_id", { id: project, group_id: groupId }, signal);
  }

  /** Caution: GitLab answers 204 without removing anything when the token is not Owner of `group`. */
  unshareGroup(group: number | string, groupId: number, signal?: AbortSignal): Promise<UnshareOutcome> {
    return this.unshare("/groups/:id/share/:group_id", { id: group, group_id: groupId }, signal);
  }

  /**
   * Idempotent: 404 "Group Link Not Found" means the share is gone, "already-gone" — unless an earlier
   * attempt of this request may have been applied (a 5xx or a connection lost after sending, then
   * retried): then it is gone because this run removed it. A 404 about the project or group (deleted,
   * or no longer visible to this token) proves nothing about the share, so it stays an error.
   */
  private async unshare(template: string, params: PathParams, signal?: AbortSignal): Promise<UnshareOutcome> {
    const { status, data, response } = await this.call<{ message?: unknown } | undefined>("DELETE", template, params, { accept: [404], signal });
    if (status !== 404) return "removed";
    if (!/group link not found/i.test(String(data?.message))) throw this.refusal("DELETE", template, response);
    return response.earlierAttemptMayHaveApplied ? "removed" : "already-gone";
  }

  /** `POST /projects/:id/share`; lib/http never repeats it once it may have reached GitLab. */
  shareProject(project: number | string, share: NewShare, signal?: AbortSignal): Promise<ShareOutcome> {
    return this.share("/projects/:id/share", project, share, signal);
  }

  /** `POST /groups/:id/share`: `group` shares itself with `share.groupId`. Never repeated either. */
  shareGroup(group: number | string, share: NewShare, signal?: AbortSignal): Promise<ShareOutcome> {
    return this.share("/groups/:id/share", group, share, signal);
  }

  /**
   * 201 showing the new link is "created" (a project share's answer is the link, a group share's the
   * sharing group with its links); a 409 saying the link exists is "exists". A 2xx that shows no such
   * link is a proxy's answer, not GitLab's, which may or may not have acted (replaced). Every other answer
   * is an HttpError whose serviceMessage is GitLab's reason: sharing locked (400), the project's own group
   * or an ancestor (409), a group or project gone (404), a level the token may not grant (403).
   */
  private async share(template: string, id: number | string, share: NewShare, signal?: AbortSignal): Promise<ShareOutcome> {
    const { status, data, response } = await this.call<Record<string, unknown> | null | undefined>("POST", template, { id }, { body: shareBody(share), accept: [409], signal });
    if (status === 409) {
      if (!ALREADY_SHARED.test(String(data?.["message"]))) throw this.refusal("POST", template, response);
      return "exists";
    }
    const links = template.startsWith("/groups") ? data?.["shared_with_groups"] : [data];
    if (Array.isArray(links) && links.some((link) => (link as { group_id?: unknown } | null)?.group_id === share.groupId)) return "created";
    throw replaced(status, template, response, this.http.redactor.path(response.url), "JSON without the new share");
  }

  /** Not idempotent: lib/http never repeats it once it may have reached GitLab. */
  createPipeline(project: number | string, ref: string, variables: { key: string; value: string }[], signal?: AbortSignal): Promise<Pipeline> {
    return this.pipelinePost("/projects/:id/pipeline", { id: project }, { ref, variables }, signal);
  }

  /** `POST /projects/:id/pipelines/:pipeline_id/cancel`; never repeated once it may have reached GitLab, as every POST. */
  cancelPipeline(project: number | string, pipelineId: number, signal?: AbortSignal): Promise<Pipeline> {
    return this.pipelinePost("/projects/:id/pipelines/:pipeline_id/cancel", { id: project, pipeline_id: pipelineId }, undefined, signal);
  }

  /**
   * A pipeline POST's answer, checked before anything reads it. A 2xx whose JSON is no pipeline is GitLab's
   * answer replaced (replaced()), maybe done, as a 2xx HTML page is. Without an id there is nothing to
   * cancel or point at; a missing sha is the job's to handle (it cancels what it cannot check).
   */
  private async pipelinePost(template: string, params: PathParams, body: unknown, signal?: AbortSignal): Promise<Pipeline> {
    const { status, data, response } = await this.call<unknown>("POST", template, params, { body, signal });
    // Only an object has an id: `null`, a list or a string has none.
    const id = (data as { id?: unknown } | null)?.id;
    if (Number.isSafeInteger(id) && (id as number) > 0) return data as Pipeline;
    throw replaced(status, template, response, this.http.redactor.path(response.url), "JSON without a pipeline's id");
  }

  /** Issues are addressed by their per-project iid, not their global id (spec §2 rule 1). */
  getIssue(project: number | string, iid: number, signal?: AbortSignal): Promise<Issue> {
    return this.get("/projects/:id/issues/:iid", { id: project, iid }, { signal });
  }

  listIssueNotes(project: number | string, iid: number, list?: ListOptions): Listing<Note> {
    return this.list("/projects/:id/issues/:iid/notes", { id: project, iid }, { list });
  }

  getFile(project: number | string, filePath: string, ref: string, signal?: AbortSignal): Promise<RepositoryFile> {
    return this.get("/projects/:id/repository/files/:file_path", { id: project, file_path: filePath }, { query: { ref }, signal });
  }

  getTag(project: number | string, tag: string, signal?: AbortSignal): Promise<Tag> {
    return this.get("/projects/:id/repository/tags/:tag", { id: project, tag }, { signal });
  }

  /** The branch, or undefined on GitLab's "404 Branch Not Found" (any other 404, a project gone say, is an error). */
  findBranch(project: number | string, branch: string, signal?: AbortSignal): Promise<Branch | undefined> {
    return this.find("/projects/:id/repository/branches/:branch", { id: project, branch }, /branch not found/i, signal);
  }

  /** The tag, or undefined on GitLab's "404 Tag Not Found". */
  findTag(project: number | string, tag: string, signal?: AbortSignal): Promise<Tag | undefined> {
    return this.find("/projects/:id/repository/tags/:tag", { id: project, tag }, /tag not found/i, signal);
  }

  /**
   * The protected-tag rule of exactly this name (not one whose wildcard matches it), or undefined on
   * the bare "404 Not found" GitLab gives for no such rule ("404 Project Not Found" stays an error).
   */
  findProtectedTag(project: number | string, name: string, signal?: AbortSignal): Promise<ProtectedTag | undefined> {
    return this.find("/projects/:id/protected_tags/:name", { id: project, name }, /^404 Not found$/i, signal);
  }

  /** Every protected-tag rule, wildcards included. A rule has no id: each is keyed by its name, unique in a project. */
  listProtectedTags(project: number | string, list?: ListOptions): Listing<ProtectedTag & { id: string }> {
    const route = "/projects/:id/protected_tags";
    const rules = gitlabOffset<ProtectedTag & { id: string }>({ http: this.http, basePath: this.basePath, path: fillPath(route, { id: project }), route: `GET ${route}` });
    const keyed = async (position: string, signal?: AbortSignal) => {
      const page = await rules.fetch(position, signal);
      return { ...page, items: page.items.map((rule) => ({ ...rule, id: rule.name })) };
    };
    return new Listing({ ...rules, idType: "string", fetch: keyed }, list);
  }
}
