/**
 * Where a watch keeps its cursor between polls: the port each front end fills (the CLI a state file,
 * bin/cli/watch-state.ts; the Watch function an item of the claims table, functions/shared/state/watch-cursor.ts).
 * A write names the revision it read, so a store shared by overlapping pollers keeps only the first
 * one's and refuses the other's (its removals were idempotent: a share already removed is "already gone").
 */
import type { WatchCursor } from "./cursor.ts";

export interface StoredCursor {
  cursor: WatchCursor;
  /** Raised by each write; 0: none stored yet. */
  revision: number;
}

export interface CursorStore {
  /** The stored cursor, or undefined when none is stored yet (a first start). */
  read(): Promise<StoredCursor | undefined>;
  /** Stores `cursor` if the stored revision is still `read` (0: none stored); false if another write came first. */
  write(cursor: WatchCursor, read: number): Promise<boolean>;
}

/**
 * `store` read as it is, never written: a look at what a poll would do (a console dry run on a stage whose
 * schedule applies) must leave the events it reads, and the subjects waiting for another try, to the
 * polls that act on them.
 */
export function readOnlyStore(store: CursorStore): CursorStore {
  return { read: () => store.read(), write: async () => true };
}
