import type { Dialect } from "./dialect.ts";
import { message, type Reply } from "./reply.ts";
import { API_PREFIX, turnsOn, type ActivationRoute } from "./routes.ts";
import { toApiWorkflow, WEBHOOK_NODE_NAME } from "./serialize.ts";
import { applyActive, publishVersion, savedVersion } from "./state.ts";
import type { SimWorkflow } from "./types.ts";

const SUCCESSOR = { activate: "publish", deactivate: "unpublish" } as const;

/** POST /workflows/:id/{activate,deactivate,publish,unpublish}, with its body as sent. Callers have already turned 1.x publish routes away. */
export function changeActivation(route: ActivationRoute, workflows: SimWorkflow[], dialect: Dialect, body: string): Reply {
  const reply = activationReply(route, workflows, dialect, body);
  if (dialect.deprecatesActivateRoutes && (route.verb === "activate" || route.verb === "deactivate")) {
    const successor = `${API_PREFIX}/workflows/${route.id}/${SUCCESSOR[route.verb]}`;
    reply.headers = { ...reply.headers, Deprecation: "true", Link: `<${successor}>; rel="successor-version"` };
  }
  return reply;
}

function activationReply(route: ActivationRoute, workflows: SimWorkflow[], dialect: Dialect, body: string): Reply {
  const wf = workflows.find((w) => w.id === route.id);
  if (!wf) return message(404, dialect.unknownWorkflowMessage(route.verb));
  const on = turnsOn(route.verb);
  const asked = on && dialect.publishesVersions ? askedVersion(body) : undefined;
  if (typeof asked === "object") return asked;
  // 2.x publishes the version asked for, else the latest saved one; only that one live already is left unchecked
  // and unchanged, as is any repeated activation on 1.x.
  const version = on && dialect.publishesVersions ? (asked ?? savedVersion(wf)) : undefined;
  const changes = version === undefined ? wf.active !== on : wf.activeVersionId !== version;
  const refusal = on && changes ? activationRefusal(wf, dialect) : null;
  if (refusal) return refusal;
  if (version === undefined) applyActive(wf, on, dialect);
  else publishVersion(wf, version, dialect);
  return { status: 200, body: toApiWorkflow(wf, dialect, false) };
}

/** The body's `versionId` (2.x's publish takes `{"versionId": …}`, optional), or the 400 n8n's OpenAPI layer answers. */
function askedVersion(body: string): string | undefined | Reply {
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return message(400, "request/body must be object");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return message(400, "request/body must be object");
  const { versionId } = parsed as { versionId?: unknown };
  if (versionId !== undefined && typeof versionId !== "string") return message(400, "request/body/versionId must be string");
  return versionId;
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
