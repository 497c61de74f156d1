/** GitLab and n8n clients for one job run: addresses from the environment, credentials from the secret. */
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { requireEnv } from "./config.ts";
import type { Secrets } from "./secrets.ts";

export function gitlabClient(secrets: Secrets): GitLabClient {
  return new GitLabClient({ url: requireEnv("GITLAB_URL"), token: secrets.gitlabToken });
}

export function n8nClient(secrets: Secrets): N8nClient {
  return new N8nClient({ url: requireEnv("N8N_URL"), apiKey: secrets.n8nApiKey });
}
