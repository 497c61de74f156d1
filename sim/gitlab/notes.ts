/**
 * Merge requests (seeded in the dataset) and their notes, as GitLab's lib/api/notes.rb answers:
 * `GET …/merge_requests/:iid/notes` by offset pages, newest first unless `sort=asc`, ordered by
 * `created_at` or `updated_at`; `POST` a `body` (201, the note); `PUT …/notes/:note_id` only by the
 * note's author or a Maintainer of the project (else 403). An unknown merge request or note is a 404.
 */
import { invalid, stringParam, type Handler, type RequestContext } from "./context.ts";
import { ACCESS, type SimProject } from "./dataset.ts";
import { apiError, notFound } from "./http.ts";
import { MAX_NOTE_CHARS, type SimNote } from "./notes-store.ts";
import { lazyList, listReply, offsetPage } from "./pagination.ts";
import { findProject } from "./projects.ts";
import type { Caller } from "./store.ts";

function mergeRequestNotes(ctx: RequestContext): { project: SimProject; iid: number; notes: SimNote[] } {
  const project = findProject(ctx);
  const raw = ctx.path["iid"]!;
  if (!/^\d+$/.test(raw)) throw invalid("merge_request_iid");
  const notes = ctx.store.notes.of(project.id, Number(raw));
  if (!notes) throw notFound();
  return { project, iid: Number(raw), notes };
}

/** `GET /projects/:id/merge_requests/:iid`: a seeded merge request (its `sha`, the source branch's head; null where the test set none). */
export const getMergeRequest: Handler = (ctx) => {
  const { project, iid } = mergeRequestNotes(ctx);
  const seeded = (ctx.store.dataset.mergeRequests ?? []).find((mr) => mr.project_id === project.id && mr.iid === iid);
  return { status: 200, body: { iid, project_id: project.id, title: seeded?.title ?? `!${iid}`, state: "opened", sha: seeded?.sha ?? null } };
};

/** `body`: present, a string, within the limit. */
function noteBody(ctx: RequestContext): string {
  const body = stringParam(ctx, "body");
  if (body === undefined || body === "") throw invalid("body", "is missing");
  if (body.length > MAX_NOTE_CHARS) throw apiError(400, { note: [`is too long (maximum is ${MAX_NOTE_CHARS} characters)`] });
  return body;
}

/** The caller's role on the project: its members' level, everyone's Owner where the project lists none (as files.ts). */
function level(project: SimProject, caller: Caller | null): number {
  return project.members && !caller?.is_admin ? (project.members[caller?.username ?? ""] ?? 0) : ACCESS.owner;
}

export const listMergeRequestNotes: Handler = (ctx) => {
  const { notes } = mergeRequestNotes(ctx);
  const sort = stringParam(ctx, "sort") ?? "desc";
  const orderBy = stringParam(ctx, "order_by") ?? "created_at";
  if (sort !== "asc" && sort !== "desc") throw invalid("sort", "does not have a valid value");
  if (orderBy !== "created_at" && orderBy !== "updated_at") throw invalid("order_by", "does not have a valid value");
  const ordered = [...notes].sort((a, b) => (orderBy === "updated_at" ? a.updated_at.localeCompare(b.updated_at) : 0) || a.id - b.id);
  if (sort === "desc") ordered.reverse();
  return listReply(offsetPage(ctx, lazyList(ordered.length, (i) => ordered[i]!)), (note) => note);
};

export const createMergeRequestNote: Handler = (ctx) => {
  const { project, iid } = mergeRequestNotes(ctx);
  if (level(project, ctx.caller) < ACCESS.guest) throw apiError(403, "403 Forbidden");
  const caller = ctx.caller!;
  return { status: 201, body: ctx.store.notes.add(project.id, iid, caller, noteBody(ctx)) };
};

export const updateMergeRequestNote: Handler = (ctx) => {
  const { project, notes } = mergeRequestNotes(ctx);
  const note = notes.find((n) => String(n.id) === ctx.path["note_id"]);
  if (!note) throw notFound("Note");
  if (note.author.id !== ctx.caller?.id && level(project, ctx.caller) < ACCESS.maintainer) throw apiError(403, "403 Forbidden");
  note.body = noteBody(ctx);
  note.updated_at = ctx.store.notes.tick();
  return { status: 200, body: note };
};
