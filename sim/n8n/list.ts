import { decodeCursor, nextCursor, type OffsetCursor } from "./cursor.ts";
import type { Dialect } from "./dialect.ts";
import { message, undeclaredParameter, type Reply } from "./reply.ts";
import { toApiWorkflow } from "./serialize.ts";
import { byId } from "./state.ts";
import type { SimWorkflow } from "./types.ts";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 250;
const BOOLEAN_PARAMS = ["active", "excludePinnedData"];
/** GET /workflows's query parameters in n8n's OpenAPI spec, `excludePinnedData` aside (undeclaredParameter). */
const DECLARED = ["active", "tags", "name", "projectId", "limit", "cursor"];

/**
 * GET /workflows. The page is an offset into the listing as filtered by *this* request, so
 * a follow-up that drops the filters, or a state change between pages, shifts items as in n8n.
 */
export function listWorkflows(
  query: URLSearchParams,
  workflows: SimWorkflow[],
  dialect: Dialect,
  onPage: (pageIndex: number) => void,
  pinnedDataParam = true,
): Reply {
  const undeclared = undeclaredParameter(query, DECLARED, pinnedDataParam);
  if (undeclared) return undeclared;
  for (const name of BOOLEAN_PARAMS) {
    const value = query.get(name);
    if (value !== null && value !== "true" && value !== "false") {
      return message(400, `request/query/${name} must be equal to one of the allowed values: true, false`);
    }
  }
  const limit = parseLimit(query.get("limit"), dialect);
  if (typeof limit !== "number") return limit;

  // n8n ignores an empty cursor; a given one replaces the query's limit.
  const rawCursor = query.get("cursor");
  const page: OffsetCursor | null = rawCursor ? decodeCursor(rawCursor) : { limit, offset: 0 };
  if (!page) return message(400, "An invalid cursor was provided");

  const matching = workflows.filter(matcher(query)).sort(byId);
  const start = Math.max(page.offset, 0);
  // limit 0 (and, on 1.x, a negative limit) means "no limit" to n8n's query builder.
  const data = matching.slice(start, page.limit > 0 ? start + page.limit : undefined);
  const excludePinnedData = query.get("excludePinnedData") === "true";
  const pageIndex = page.limit === 0 ? 0 : Math.floor(page.offset / page.limit);
  return {
    status: 200,
    body: {
      data: data.map((wf) => toApiWorkflow(wf, dialect, excludePinnedData)),
      nextCursor: nextCursor(page, matching.length),
    },
    afterSend: () => onPage(pageIndex),
  };
}

/** The query's limit, or the 400 n8n's request validator answers with. */
function parseLimit(raw: string | null, dialect: Dialect): number | Reply {
  if (raw === null) return DEFAULT_LIMIT;
  if (!/^-?\d+$/.test(raw)) return message(400, "request/query/limit must be number");
  const limit = Number(raw);
  if (limit > MAX_LIMIT) {
    return dialect.cutsLimit ? MAX_LIMIT : message(400, `request/query/limit must be <= ${MAX_LIMIT}`);
  }
  if (limit < 0 && !dialect.acceptsNegativeLimit) return message(400, "request/query/limit must be >= 0");
  return limit;
}

/** `active`; `name`, a substring, case-insensitive like SQLite's LIKE; `tags`, comma-separated, all required. */
function matcher(query: URLSearchParams): (wf: SimWorkflow) => boolean {
  const active = query.get("active");
  const name = query.get("name")?.trim().toLowerCase();
  const tags = query.get("tags")?.split(",").map((tag) => tag.trim());
  return (wf) =>
    (active === null || wf.active === (active === "true")) &&
    (!name || wf.name.toLowerCase().includes(name)) &&
    (!tags || tags.every((tag) => wf.tags.some((t) => t.name === tag)));
}
