/**
 * What GitLab's answers say about the settings Warden reached it with (lib/http/explain.ts words the
 * errors), and what the CLI calls those settings unless a front end names them otherwise.
 */
import type { HttpError, ServiceTerms, SettingNames } from "../http/index.ts";

export const GITLAB_SETTINGS: SettingNames = { url: "GITLAB_URL", credential: "GITLAB_TOKEN" };

/** The CLI's token that starts pipelines in place of GITLAB_TOKEN when set (the Lambda secret's pipelineToken). */
export const PIPELINE_TOKEN_VARIABLE = "WARDEN_PIPELINE_TOKEN";

export const GITLAB_TERMS: ServiceTerms = {
  service: "GitLab",
  probeRoute: "GET /user",
  addressIs: "the GitLab host",
  refusedBecause: "expired, revoked, or made on another GitLab?",
  notHere: (address) =>
    `GitLab's API is not at this address — is it GitLab's? If GitLab runs under a relative URL, include its path (such as ${address.origin}/gitlab)`,
  // GitLab says so in the body ({"error":"insufficient_scope", …}) and in WWW-Authenticate.
  missingScope: (err) => {
    if (!/insufficient_scope/.test(`${err.serviceMessage} ${err.headers["www-authenticate"] ?? ""}`)) return undefined;
    return err.method === "GET" || err.method === "HEAD"
      ? "lacks the read_api scope: dry runs need read_api, applying changes needs api"
      : "lacks the api scope: applying changes needs api (read_api is enough for dry runs)";
  },
};
