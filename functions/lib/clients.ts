/**
 * GitLab and n8n clients for one job run: addresses from the environment, credentials from the secret.
 * A deployment may use only one of the two services, so either may be left unconfigured; a job that
 * needs it then fails before any request, naming everything that is missing.
 */
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { ConfigError } from "./config.ts";
import type { Secrets } from "./secrets.ts";

const SERVICES = {
  gitlab: { name: "GitLab", env: "GITLAB_URL", secret: "gitlabToken" },
  n8n: { name: "n8n", env: "N8N_URL", secret: "n8nApiKey" },
} as const;

export function gitlabClient(secrets: Secrets): GitLabClient {
  const { url, credential } = configured("gitlab", secrets);
  return new GitLabClient({ url, token: credential });
}

export function n8nClient(secrets: Secrets): N8nClient {
  const { url, credential } = configured("n8n", secrets);
  return new N8nClient({ url, apiKey: credential });
}

function configured(service: keyof typeof SERVICES, secrets: Secrets): { url: string; credential: string } {
  const { name, env, secret } = SERVICES[service];
  const url = process.env[env];
  const credential = secrets[secret];
  if (url && credential) return { url, credential };
  const missing = [...(url ? [] : [`${env} is not set`]), ...(credential ? [] : [`the secret has no ${secret}`])];
  throw new ConfigError(`${name} is not configured on this deployment: ${missing.join(", and ")}`);
}
