import type { Dialect } from "./dialect.ts";
import { message, type Reply } from "./reply.ts";
import { API_PREFIX, turnsOn, type ActivationRoute } from "./routes.ts";
import { toApiWorkflow, WEBHOOK_NODE_NAME } from "./serialize.ts";
import { applyActive } from "./state.ts";
import type { SimWorkflow } from "./types.ts";

const SUCCESSOR = { activate: "publish", deactivate: "unpublish" } as const;

/** POST /workflows/:id/{activate,deactivate,publish,unpublish}. Callers have already turned 1.x publish routes away. */
export function changeActivation(route: ActivationRoute, workflows: SimWorkflow[], dialect: Dialect): Reply {
  const reply = activationReply(route, workflows, dialect);
  if (dialect.deprecatesActivateRoutes && (route.verb === "activate" || route.verb === "deactivate")) {
    const successor = `${API_PREFIX}/workflows/${route.id}/${SUCCESSOR[route.verb]}`;
    reply.headers = { ...reply.headers, Deprecation: "true", Link: `<${successor}>; rel="successor-version"` };
  }
  return reply;
}

function activationReply(route: ActivationRoute, workflows: SimWorkflow[], dialect: Dialect): Reply {
  const wf = workflows.find((w) => w.id === route.id);
  if (!wf) return message(404, dialect.unknownWorkflowMessage(route.verb));
  const on = turnsOn(route.verb);
  // Repeating an activation skips the checks: n8n answers 200 with the workflow unchanged.
  const refusal = on && !wf.active ? activationRefusal(wf, dialect) : null;
  if (refusal) return refusal;
  applyActive(wf, on, dialect);
  return { status: 200, body: toApiWorkflow(wf, dialect, false) };
}

function activationRefusal(wf: SimWorkflow, dialect: Dialect): Reply | null {
  if (wf.isArchived && !dialect.activatesArchived) return message(400, "Cannot activate an archived workflow");
  if (!wf.hasTrigger) return message(400, dialect.noTriggerMessage(wf));
  if (wf.webhookConflict) {
    return message(
      dialect.conflictStatus,
      "There is a conflict with one of the webhooks. " +
        `The URL path that the "${WEBHOOK_NODE_NAME}" node uses is already taken. Please change it to something else.`,
    );
  }
  return null;
}
