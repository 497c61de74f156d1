/**
 * Stored issues (work-store.ts) as GitLab's lib/api/issues.rb answers: `POST /projects/:id/issues`
 * (Reporter or above; 201), `PUT …/issues/:iid` (`state_event` close|reopen, `due_date`,
 * `description`, `add_labels`, `title`; Reporter or above, or a Guest who is its author or an assignee,
 * as GitLab's IssuablePolicy lets them, whose `due_date` and `add_labels` are dropped: only Reporters
 * and above set an issue's metadata, and GitLab ignores it from anyone else), `GET /projects/:id/issues` filtered by `labels` (all of
 * them), `state`, `updated_after` (updated at or after) and `author_id`, by offset pages or keyset
 * (`pagination=keyset`, `order_by` created_at|updated_at), newest first unless `sort=asc`, and
 * `POST …/issues/:iid/notes` (Guest or above). A closed issue carries `closed_at` and `closed_by`
 * (who closed it; both null while open). A confidential issue is listed only to Reporters and above,
 * its author and assignees.
 * The fixed issues issues.ts derives are not stored and not listed.
 */
import { boolParam, invalid, stringParam, type Handler, type RequestContext } from "./context.ts";
import { ACCESS, type SimProject } from "./dataset.ts";
import { apiError, notFound } from "./http.ts";
import { MAX_NOTE_CHARS } from "./notes-store.ts";
import { decodeCursor, encodeCursor, keysetPage, lazyList, listReply, offsetPage } from "./pagination.ts";
import { findProject } from "./projects.ts";
import { listOf } from "./query.ts";
import { accessLevel, requireLevel } from "./roles.ts";
import { DERIVED_ISSUES, type SimIssue, type SimUserRef } from "./work-store.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const splitLabels = (text: string | undefined): string[] => (text ?? "").split(",").map((l) => l.trim()).filter(Boolean);

function userRef(ctx: RequestContext): SimUserRef {
  const caller = ctx.caller!;
  return { id: caller.id, username: caller.username, name: caller.name ?? caller.username };
}

function dueDate(ctx: RequestContext): string | null | undefined {
  const value = stringParam(ctx, "due_date");
  if (value === undefined) return undefined;
  if (value === "") return null;
  const day = new Date(`${value}T00:00:00Z`);
  if (!DAY.test(value) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) throw invalid("due_date");
  return value;
}

const serialize = (issue: SimIssue) => {
  const { notes: _notes, ...fields } = issue;
  return fields;
};

export function storedIssue(ctx: RequestContext, project: SimProject): SimIssue | undefined {
  const raw = ctx.path["iid"]!;
  if (!/^\d+$/.test(raw)) throw invalid("iid");
  return ctx.store.work.issues.get(project.id)?.find((i) => i.iid === Number(raw));
}

function authorOrAssignee(ctx: RequestContext, issue: SimIssue): boolean {
  const id = ctx.caller?.id;
  return issue.author.id === id || issue.assignees.some((a) => a.id === id);
}

function visible(ctx: RequestContext, project: SimProject, issue: SimIssue): boolean {
  return !issue.confidential || accessLevel(project, ctx) >= ACCESS.reporter || authorOrAssignee(ctx, issue);
}

/** `updated_after` as GitLab reads it: an ISO 8601 time (400 otherwise); undefined when not given. */
function updatedAfter(ctx: RequestContext): number | undefined {
  const value = stringParam(ctx, "updated_after");
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at)) throw invalid("updated_after");
  return at;
}

/** GitLab's limit on an issue's title. */
const MAX_TITLE_CHARS = 255;

/** Issuable's validation: a title of at most 255 characters (code points, as Ruby counts them). */
function checkTitle(title: string): string {
  if (Array.from(title).length > MAX_TITLE_CHARS) throw apiError(400, { title: [`is too long (maximum is ${MAX_TITLE_CHARS} characters)`] });
  return title;
}

export const createIssue: Handler = (ctx) => {
  const project = findProject(ctx);
  requireLevel(project, ctx, ACCESS.reporter);
  const title = stringParam(ctx, "title");
  if (!title) throw invalid("title", "is missing");
  checkTitle(title);
  const assigneeIds = listOf(ctx.params["assignee_ids"]);
  if (!assigneeIds) throw invalid("assignee_ids");
  const assignees = assigneeIds.map((id) => {
    const user = /^\d+$/.test(String(id)) ? ctx.store.userById(Number(id)) : undefined;
    if (!user) throw invalid("assignee_ids");
    return { id: user.id, username: user.username, name: user.name };
  });
  const description = stringParam(ctx, "description") ?? null;
  if (description !== null && description.length > MAX_NOTE_CHARS) throw apiError(400, { description: [`is too long (maximum is ${MAX_NOTE_CHARS} characters)`] });
  const work = ctx.store.work;
  const list = work.issuesOf(project.id);
  const iid = DERIVED_ISSUES + list.length + 1;
  const at = work.tick();
  const issue: SimIssue = {
    id: work.nextId(), iid, project_id: project.id, title, description, state: "opened",
    labels: [...new Set(splitLabels(stringParam(ctx, "labels")))], assignees, author: userRef(ctx),
    due_date: dueDate(ctx) ?? null, confidential: boolParam(ctx, "confidential", false),
    created_at: at, updated_at: at, closed_at: null, closed_by: null,
    web_url: `${ctx.baseUrl}/${project.path_with_namespace}/-/issues/${iid}`, notes: [],
  };
  list.push(issue);
  return { status: 201, body: serialize(issue) };
};

export const updateIssue: Handler = (ctx) => {
  const project = findProject(ctx);
  const issue = storedIssue(ctx, project);
  if (!issue || !visible(ctx, project, issue)) throw notFound("Issue");
  requireLevel(project, ctx, authorOrAssignee(ctx, issue) ? ACCESS.guest : ACCESS.reporter);
  const metadata = accessLevel(project, ctx) >= ACCESS.reporter;
  const state = stringParam(ctx, "state_event");
  if (state !== undefined && state !== "close" && state !== "reopen") throw invalid("state_event", "does not have a valid value");
  const due = dueDate(ctx);
  const at = ctx.store.work.tick();
  if (state === "close" && issue.state === "opened") Object.assign(issue, { state: "closed", closed_at: at, closed_by: userRef(ctx) });
  if (state === "reopen" && issue.state === "closed") Object.assign(issue, { state: "opened", closed_at: null, closed_by: null });
  if (due !== undefined && metadata) issue.due_date = due;
  const description = stringParam(ctx, "description");
  if (description !== undefined) issue.description = description;
  const title = stringParam(ctx, "title");
  if (title) issue.title = checkTitle(title);
  if (metadata) for (const label of splitLabels(stringParam(ctx, "add_labels"))) if (!issue.labels.includes(label)) issue.labels.push(label);
  issue.updated_at = at;
  return { status: 200, body: serialize(issue) };
};

export const createIssueNote: Handler = (ctx) => {
  const project = findProject(ctx);
  const issue = storedIssue(ctx, project);
  if (!issue || !visible(ctx, project, issue)) throw notFound("Issue");
  requireLevel(project, ctx, ACCESS.guest);
  const body = stringParam(ctx, "body");
  if (!body) throw invalid("body", "is missing");
  if (body.length > MAX_NOTE_CHARS) throw apiError(400, { note: [`is too long (maximum is ${MAX_NOTE_CHARS} characters)`] });
  const at = ctx.store.work.tick();
  const note = { id: ctx.store.work.nextId(), body, author: userRef(ctx), created_at: at, updated_at: at, system: false, noteable_type: "Issue" as const, noteable_iid: issue.iid };
  issue.notes.push(note);
  issue.updated_at = at;
  return { status: 201, body: note };
};

type Order = "created_at" | "updated_at";

/** `order_by` and `sort` of a listing of issues or their notes: GitLab's defaults, and its 400 for anything else. */
function listOrder(ctx: RequestContext): { orderBy: Order; sign: 1 | -1 } {
  const orderBy = (stringParam(ctx, "order_by") ?? "created_at") as Order;
  if (orderBy !== "created_at" && orderBy !== "updated_at") throw invalid("order_by", "does not have a valid value");
  const sort = stringParam(ctx, "sort") ?? "desc";
  if (sort !== "asc" && sort !== "desc") throw invalid("sort", "does not have a valid value");
  return { orderBy, sign: sort === "asc" ? 1 : -1 };
}

/** `GET …/issues/:iid/notes` of an issue created here: newest first by default, offset pages. */
export function storedIssueNotes(ctx: RequestContext, project: SimProject, issue: SimIssue): ReturnType<Handler> {
  if (!visible(ctx, project, issue)) throw notFound("Issue");
  const { orderBy, sign } = listOrder(ctx);
  const notes = [...issue.notes].sort((a, b) => sign * (a[orderBy].localeCompare(b[orderBy]) || a.id - b.id));
  return listReply(offsetPage(ctx, notes), (note) => note);
}

export const listIssues: Handler = (ctx) => {
  const project = findProject(ctx);
  const state = stringParam(ctx, "state") ?? "all";
  if (!["opened", "closed", "all"].includes(state)) throw invalid("state", "does not have a valid value");
  const { orderBy, sign } = listOrder(ctx);
  const labels = splitLabels(stringParam(ctx, "labels"));
  const since = updatedAfter(ctx);
  const authorParam = stringParam(ctx, "author_id");
  if (authorParam !== undefined && !/^[1-9]\d{0,15}$/.test(authorParam)) throw invalid("author_id");
  const author = authorParam === undefined ? undefined : Number(authorParam);
  const compare = (a: SimIssue, b: SimIssue) => sign * (a[orderBy].localeCompare(b[orderBy]) || a.id - b.id);
  const matching = (ctx.store.work.issues.get(project.id) ?? [])
    .filter((i) => (state === "all" || i.state === state) && labels.every((l) => i.labels.includes(l)) && (since === undefined || Date.parse(i.updated_at) >= since) && (author === undefined || i.author.id === author) && visible(ctx, project, i))
    .sort(compare);
  if (stringParam(ctx, "pagination") !== "keyset") return listReply(offsetPage(ctx, matching), serialize);
  // Keyset: the cursor holds the last item's sort value and id; the next page starts after it.
  const cursor = decodeCursor(ctx);
  const after = cursor && { [orderBy]: String(cursor["value"]), id: Number(cursor["id"]) } as unknown as SimIssue;
  const rest = after ? matching.filter((i) => compare(i, after) > 0) : matching;
  return listReply(
    keysetPage(ctx, lazyList(rest.length, (i) => rest[i]!), (last) => {
      const next = encodeCursor({ value: last[orderBy], id: String(last.id) });
      return { params: { cursor: next }, cursor: next };
    }),
    serialize,
  );
};
