import type { Dialect } from "./dialect.ts";
import { message, undeclaredParameter, type Reply } from "./reply.ts";
import { toApiWorkflow } from "./serialize.ts";
import type { SimWorkflow } from "./types.ts";

/**
 * GET /workflows/:id — "Not Found" on both generations (the permission wording is only on activation routes).
 * Its one query parameter is `excludePinnedData`, declared from the same version as on the listing (undeclaredParameter).
 */
export function getWorkflow(id: string, query: URLSearchParams, workflows: SimWorkflow[], dialect: Dialect, pinnedDataParam = true): Reply {
  const undeclared = undeclaredParameter(query, [], pinnedDataParam);
  if (undeclared) return undeclared;
  const wf = workflows.find((w) => w.id === id);
  if (!wf) return message(404, "Not Found");
  return { status: 200, body: toApiWorkflow(wf, dialect, query.get("excludePinnedData") === "true") };
}
