/**
 * `warden watch`'s cursor store (lib/jobs/watch/store.ts): a state file holding the cursor and the
 * GitLab it belongs to, written atomically (lib/jobs/atomic-file.ts: a new file of a random name renamed
 * over the old), so a watch killed mid-write leaves the previous cursor, never half of one. The file
 * is read once, when the store is made (a bad or foreign file, or a directory that cannot take a first
 * one, is refused before any request); the watch is its only writer after that.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomically } from "../../lib/jobs/index.ts";
import { parseWatchCursor, type CursorStore, type WatchCursor } from "../../lib/jobs/watch/index.ts";
import { redactThenCut } from "../../lib/redact/index.ts";
import { UsageError } from "./command.ts";
import { fileToWrite } from "./file-to-write.ts";

export const DEFAULT_WATCH_STATE = ".warden-watch.json";

export function fileCursorStore(path: string, gitlabUrl: string): CursorStore {
  // Checked now, not at the first write after a poll: a watch must not enforce what it cannot record.
  fileToWrite("--state", path, DEFAULT_WATCH_STATE);
  let saved = readWatchState(path, gitlabUrl);
  let revision = saved ? 1 : 0;
  return {
    async read() {
      return saved && { cursor: saved, revision };
    },
    async write(cursor, read) {
      if (read !== revision) return false;
      writeFileAtomically(path, `${JSON.stringify({ ...cursor, gitlabUrl }, null, 2)}\n`);
      [saved, revision] = [cursor, revision + 1];
      return true;
    },
  };
}

/** The cursor saved for this GitLab, or undefined when there is no file yet (a first start). */
function readWatchState(path: string, gitlabUrl: string): WatchCursor | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UsageError(`--state ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const fresh = `delete it to start afresh at the newest event (the events in between are left to the scheduled sweep)`;
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new UsageError(`--state ${path}: not JSON, so not a watch's state file; ${fresh}`);
  }
  const cursor = parseWatchCursor(state);
  if (!cursor) throw new UsageError(`--state ${path}: not a watch's state file (version 2 with a position per source, or version 1); ${fresh}`);
  const saved = (state as { gitlabUrl?: unknown }).gitlabUrl;
  // The file's text, quoted as JSON: a newline in it must not forge a line of its own on stderr. Redacted
  // before the cut: a cut through a URL's `user:password@` would leave the password unmasked.
  if (saved !== gitlabUrl) throw new UsageError(`--state ${path}: the cursor of ${redactThenCut(JSON.stringify(saved ?? null), 200)}, not of ${gitlabUrl}; give another --state file for this GitLab`);
  return cursor;
}
