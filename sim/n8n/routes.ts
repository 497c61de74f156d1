export const API_PREFIX = "/api/v1";

const ACTIVATION_VERBS = ["activate", "deactivate", "publish", "unpublish"] as const;
export type ActivationVerb = (typeof ACTIVATION_VERBS)[number];

export interface ActivationRoute {
  key: `POST /workflows/:id/${ActivationVerb}`;
  id: string;
  verb: ActivationVerb;
}

export type Route = { key: "GET /workflows" } | { key: "GET /workflows/:id"; id: string } | ActivationRoute;

/**
 * Maps a request to one of the simulated routes, or null when the API has no such route.
 * Ids are taken as sent: n8n's are alphanumeric, so there is nothing to decode.
 */
export function matchRoute(method: string, pathname: string): Route | null {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return null;
  const [collection, id, verb, ...rest] = pathname.slice(API_PREFIX.length + 1).split("/");
  if (collection !== "workflows" || rest.length > 0) return null;
  if (method === "GET" && id === undefined) return { key: "GET /workflows" };
  if (!id) return null;
  if (method === "GET" && verb === undefined) return { key: "GET /workflows/:id", id };
  if (method === "POST" && verb !== undefined && isActivationVerb(verb)) {
    return { key: `POST /workflows/:id/${verb}`, id, verb };
  }
  return null;
}

function isActivationVerb(verb: string): verb is ActivationVerb {
  return (ACTIVATION_VERBS as readonly string[]).includes(verb);
}

/** activate and publish turn a workflow on; deactivate and unpublish turn it off. */
export function turnsOn(verb: ActivationVerb): boolean {
  return verb === "activate" || verb === "publish";
}

/** The API-key scope n8n 2.x demands for each route (publish/unpublish share the activation scopes). */
export function requiredScope(route: Route): string {
  if (route.key === "GET /workflows") return "workflow:list";
  if (route.key === "GET /workflows/:id") return "workflow:read";
  return turnsOn(route.verb) ? "workflow:activate" : "workflow:deactivate";
}
