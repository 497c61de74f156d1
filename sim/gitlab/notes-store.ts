/** The seeded merge requests' notes (notes.ts answers the routes): live, so tests may plant a note. */
import type { SimMergeRequest } from "./dataset.ts";

/** GitLab's limit on a note's body. */
export const MAX_NOTE_CHARS = 1_000_000;

export interface SimNote {
  id: number;
  body: string;
  author: { id: number; username: string; name: string };
  created_at: string;
  updated_at: string;
  system: boolean;
  noteable_type: "MergeRequest";
  noteable_iid: number;
}

export class SimNotes {
  /** `projectId!iid` → its notes, oldest first. */
  private readonly byRequest = new Map<string, SimNote[]>();
  private lastId = 5_000;
  /** A clock that always moves on, so each note's times differ from the one before. */
  private lastMs = 0;

  constructor(mergeRequests: readonly SimMergeRequest[] = []) {
    for (const mr of mergeRequests) this.byRequest.set(`${mr.project_id}!${mr.iid}`, []);
  }

  /** The notes of a merge request, oldest first (live); undefined for a merge request the project does not have. */
  of(projectId: number, iid: number): SimNote[] | undefined {
    return this.byRequest.get(`${projectId}!${iid}`);
  }

  /** A note written by `author` (tests plant one as another user would). */
  add(projectId: number, iid: number, author: { id: number; username: string; name?: string }, body: string): SimNote {
    const notes = this.of(projectId, iid);
    if (!notes) throw new Error(`the simulator has no merge request !${iid} in project ${projectId}`);
    const at = this.tick();
    const note: SimNote = { id: ++this.lastId, body, author: { id: author.id, username: author.username, name: author.name ?? author.username }, created_at: at, updated_at: at, system: false, noteable_type: "MergeRequest", noteable_iid: iid };
    notes.push(note);
    return note;
  }

  tick(): string {
    this.lastMs = Math.max(Date.now(), this.lastMs + 1);
    return new Date(this.lastMs).toISOString();
  }
}
