/**
 * Where a watch stands: per source, the id of the last audit event handled. Per source, not one
 * number: event ids are instance-wide, and a source read early in a poll may get an event with an
 * id below one a source read later already returned.
 */
import { listAuditEvents, type GitLabClient } from "../../gitlab/index.ts";
import { auditRefusal, type WatchSource } from "./sources.ts";

export interface WatchCursor {
  version: 1;
  /** Source key ("instance", "group:12") → the last event id handled. */
  sources: Record<string, number>;
}

/** Whether a value read back (a state file, a table item) is a cursor. */
export function isWatchCursor(value: unknown): value is WatchCursor {
  const v = value as Partial<WatchCursor> | null;
  return (
    typeof v === "object" && v !== null && v.version === 1 && typeof v.sources === "object" && v.sources !== null &&
    Object.values(v.sources).every((id) => Number.isSafeInteger(id) && id >= 0)
  );
}

/**
 * The cursor with every source it lacks set at that source's newest event now (one request each):
 * a watch does not replay history, it handles what happens from its start (the sweep has the past).
 */
export async function cursorFor(gitlab: GitLabClient, sources: readonly WatchSource[], known: WatchCursor | undefined, signal?: AbortSignal): Promise<WatchCursor> {
  const cursor: WatchCursor = { version: 1, sources: {} };
  for (const source of sources) {
    const last = known?.sources[source.key];
    cursor.sources[source.key] = last ?? (await newestEventId(gitlab, source, signal));
  }
  return cursor;
}

async function newestEventId(gitlab: GitLabClient, source: WatchSource, signal?: AbortSignal): Promise<number> {
  try {
    for await (const event of listAuditEvents(gitlab, source.source, {}, { maxItems: 1, signal })) return event.id;
    return 0;
  } catch (err) {
    return auditRefusal(err, source);
  }
}
