import type { Dialect } from "./dialect.ts";
import { message, type Reply } from "./reply.ts";
import { toApiWorkflow } from "./serialize.ts";
import type { SimWorkflow } from "./types.ts";

/**
 * GET /workflows/:id — "Not Found" on both generations (the permission wording is only on activation routes).
 * `excludePinnedData` is declared here from the same version as on the listing (n8n-io/n8n#12261): an older n8n's
 * validator refuses it, as it refuses every parameter its spec does not declare.
 */
export function getWorkflow(id: string, query: URLSearchParams, workflows: SimWorkflow[], dialect: Dialect, pinnedDataParam = true): Reply {
  const unknown = [...query.keys()].find((name) => !(pinnedDataParam && name === "excludePinnedData"));
  if (unknown !== undefined) return message(400, `Unknown query parameter '${unknown}'`);
  const wf = workflows.find((w) => w.id === id);
  if (!wf) return message(404, "Not Found");
  return { status: 200, body: toApiWorkflow(wf, dialect, query.get("excludePinnedData") === "true") };
}
