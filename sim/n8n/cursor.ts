/** n8n's list cursor: base64 of `{"limit":L,"offset":O}`. It holds no filters: follow-ups must repeat them. */
export interface OffsetCursor {
  limit: number;
  offset: number;
}

export function encodeCursor(cursor: OffsetCursor): string {
  return Buffer.from(JSON.stringify({ limit: cursor.limit, offset: cursor.offset })).toString("base64");
}

/** Returns null for anything n8n would answer with "An invalid cursor was provided". */
export function decodeCursor(raw: string): OffsetCursor | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, "base64").toString("utf8"));
    if (typeof parsed !== "object" || parsed === null) return null;
    const { limit, offset } = parsed as Record<string, unknown>;
    if (typeof limit !== "number" || typeof offset !== "number") return null;
    return Number.isInteger(limit) && Number.isInteger(offset) ? { limit, offset } : null;
  } catch {
    return null;
  }
}

/** Same rule as n8n's pagination service: a next page exists while offset + limit is short of the total. */
export function nextCursor(cursor: OffsetCursor, total: number): string | null {
  const offset = cursor.offset + cursor.limit;
  return offset < total ? encodeCursor({ limit: cursor.limit, offset }) : null;
}
