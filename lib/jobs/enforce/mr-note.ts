/**
 * The one write a dry run may make, when asked (--mr-note): a comparison of policies as one note on
 * the merge request, edited in place by each later pipeline. The note is found by the hidden marker
 * its body starts with, among the notes of the token's own user only: anyone may write the marker
 * into a note of their own, and Warden must never take that note over (nor could it edit it).
 */
import { redactOutput } from "../../redact/index.ts";
import type { GitLabClient } from "../../gitlab/index.ts";
import { createMergeRequestNote, listMergeRequestNotes, MAX_NOTE_CHARS, mergeRequestHead, updateMergeRequestNote, type MergeRequestRef } from "../../gitlab/notes.ts";
import { NOTE_MARKER } from "../shares/comparison.ts";

export type NoteOutcome = { action: "created" | "updated"; noteId: number } | { action: "left"; head: string };

const CUT = "\n\n…cut here: GitLab's notes hold at most 1,000,000 characters (the JSON report, --format json, has everything).";

/** The note's body: redacted like every other output, marked, and cut to GitLab's limit. */
export function noteBody(markdown: string): string {
  const redacted = redactOutput(markdown);
  const body = redacted.startsWith(NOTE_MARKER) ? redacted : `${NOTE_MARKER}\n${redacted}`;
  // On a code point: no half of a surrogate pair, which is no character GitLab would take.
  return body.length <= MAX_NOTE_CHARS ? body : body.slice(0, MAX_NOTE_CHARS - CUT.length).replace(/[\uD800-\uDBFF]$/, "") + CUT;
}

/**
 * Edits this user's marked note on the merge request (PUT: idempotent, so retried like a read), or,
 * when there is none, posts one (POST: lib/http never repeats it once it may have arrived). The
 * notes are read newest first, so the listing stops at the latest marked note. Given the commit compared,
 * the note is left as it is (`left`) where the merge request's head is another: an older pipeline's job
 * (retried by the author, or finishing after a newer one) would otherwise say a harmless version's fate
 * over the comparison of the one to be merged.
 */
export async function publishMergeRequestNote(gitlab: GitLabClient, mr: MergeRequestRef, markdown: string, opts: { signal?: AbortSignal; compared?: string } = {}): Promise<NoteOutcome> {
  const { signal, compared } = opts;
  const head = compared === undefined ? undefined : await mergeRequestHead(gitlab, mr, signal);
  if (head !== undefined && head !== compared) return { action: "left", head };
  const body = noteBody(compared === undefined ? markdown : `${markdown}\n\n_The policy at commit \`${compared.slice(0, 12)}\`, this merge request's head when compared._`);
  const me = await gitlab.currentUser(signal);
  for await (const note of listMergeRequestNotes(gitlab, mr, signal ? { signal } : undefined)) {
    if (note.system === true || note.author?.id !== me.id || !note.body.startsWith(NOTE_MARKER)) continue;
    await updateMergeRequestNote(gitlab, mr, note.id, body, signal);
    return { action: "updated", noteId: note.id };
  }
  const created = await createMergeRequestNote(gitlab, mr, body, signal);
  return { action: "created", noteId: created.id };
}
