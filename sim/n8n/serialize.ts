import type { Dialect } from "./dialect.ts";
import { savedVersion, tracksActiveVersion } from "./state.ts";
import type { SimWorkflow } from "./types.ts";

const SET_NODE = {
  id: "b7d1c0de-0000-4000-8000-000000000002",
  name: "Edit Fields",
  type: "n8n-nodes-base.set",
  typeVersion: 3.4,
  position: [220, 0],
  parameters: {},
};

export const WEBHOOK_NODE_NAME = "Webhook";

/** A webhook trigger where the sim is told to fake a path conflict, a schedule trigger otherwise. */
function triggerNode(wf: SimWorkflow) {
  const trigger = wf.webhookConflict
    ? {
        name: WEBHOOK_NODE_NAME,
        type: "n8n-nodes-base.webhook",
        typeVersion: 2,
        webhookId: `${wf.id}-hook`,
        parameters: { path: "shared-path", httpMethod: "POST" },
      }
    : {
        name: "Schedule Trigger",
        type: "n8n-nodes-base.scheduleTrigger",
        typeVersion: 1.2,
        parameters: { rule: { interval: [{}] } },
      };
  return { id: "b7d1c0de-0000-4000-8000-000000000001", ...trigger, position: [0, 0] };
}

/** The workflow object as n8n serves it; sim-only fields stay behind. */
export function toApiWorkflow(wf: SimWorkflow, dialect: Dialect, excludePinnedData: boolean): Record<string, unknown> {
  const trigger = wf.hasTrigger ? triggerNode(wf) : undefined;
  const served: Record<string, unknown> = {
    id: wf.id,
    name: wf.name,
    active: wf.active,
    isArchived: wf.isArchived,
    createdAt: wf.createdAt,
    updatedAt: wf.updatedAt,
    versionId: savedVersion(wf),
    tags: wf.tags.map((tag) => ({ ...tag })),
    nodes: trigger ? [trigger, SET_NODE] : [SET_NODE],
    connections: trigger ? { [trigger.name]: { main: [[{ node: SET_NODE.name, type: "main", index: 0 }]] } } : {},
    settings: { executionOrder: "v1" },
  };
  if (!excludePinnedData) {
    const records = wf.pinnedRecords === undefined ? [{ json: { sample: true } }] : Array.from({ length: wf.pinnedRecords }, (_, i) => ({ json: { customer: `customer-${i}@example.com`, amount: i } }));
    served.pinData = { [SET_NODE.name]: records };
  }
  if (tracksActiveVersion(wf, dialect)) served.activeVersionId = wf.activeVersionId ?? null;
  return served;
}
