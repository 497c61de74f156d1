/**
 * What n8n's answers say about the settings Warden reached it with (lib/http/explain.ts words the
 * errors), and what the CLI calls those settings unless a front end names them otherwise.
 */
import type { HttpError, ServiceTerms, SettingNames } from "../http/index.ts";

export const N8N_SETTINGS: SettingNames = { url: "N8N_URL", credential: "N8N_API_KEY" };

export const N8N_TERMS: ServiceTerms = {
  service: "n8n",
  probeRoute: "GET /workflows",
  addressIs: "the n8n instance address (without /api/v1)",
  refusedBecause: "wrong, expired or revoked, or made on another n8n?",
  notHere: () =>
    "n8n's public API is not at this address — is it the instance's address (with its path, if n8n is served under one), and is the public API on (N8N_PUBLIC_API_DISABLED not set)?",
  // n8n answers 403 for a scope the key lacks (2.x; 1.x without a licence enforces none), and for a workflow its
  // user may not change (a project's viewer): a change refused while others of its kind were made is the latter.
  missingScope: (err) =>
    `lacks the ${n8nScope(err.route)} scope${err.route.startsWith("POST ") ? ", or its user may not change this workflow (a viewer of its project, or shared it read-only)" : ""}: Warden needs workflow:list, and workflow:read, workflow:activate and workflow:deactivate to apply changes`,
};

function n8nScope(route: string): string {
  if (route === "GET /workflows") return "workflow:list";
  if (route.startsWith("GET ")) return "workflow:read";
  return /\/(deactivate|unpublish)$/.test(route) ? "workflow:deactivate" : "workflow:activate";
}
