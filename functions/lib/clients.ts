/**
 * GitLab and n8n clients for one job run: addresses from the environment, credentials from the secret.
 * A deployment may use only one of the two services, so either may be left unconfigured; a job that
 * needs it then fails before any request, naming everything that is missing. What is there is checked
 * as the CLI checks it (lib/config/service-config.ts), naming the variable or the secret's field.
 */
import { checkCredential, checkServiceUrl, GITLAB, N8N, type ServiceKind } from "../../lib/config/service-config.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import type { WaitEvent } from "../../lib/http/types.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { ConfigError } from "./config.ts";
import { logger } from "./logger.ts";
import type { Secrets } from "./secrets.ts";

const SERVICES = {
  gitlab: { name: "GitLab", kind: GITLAB, env: "GITLAB_URL", secret: "gitlabToken" },
  n8n: { name: "n8n", kind: N8N, env: "N8N_URL", secret: "n8nApiKey" },
} as const satisfies Record<string, { name: string; kind: ServiceKind; env: string; secret: keyof Secrets }>;

/** A long wait (a Retry-After, a backoff, a slow answer) is logged as it starts, not only when the run ends. */
const onWait = ({ message, kind, route, attempt, waitMs }: WaitEvent) => logger.info("waiting", { detail: message, kind, route, attempt, waitMs });

export function gitlabClient(secrets: Secrets): GitLabClient {
  const { url, credential } = configured("gitlab", secrets);
  return new GitLabClient({ url, token: credential, onWait });
}

export function n8nClient(secrets: Secrets): N8nClient {
  const { url, credential } = configured("n8n", secrets);
  return new N8nClient({ url, apiKey: credential, onWait });
}

function configured(service: keyof typeof SERVICES, secrets: Secrets): { url: string; credential: string } {
  const { name, kind, env, secret } = SERVICES[service];
  const url = process.env[env];
  const credential = secrets[secret];
  if (!url || !credential) {
    const missing = [...(url ? [] : [`${env} is not set`]), ...(credential ? [] : [`the secret has no ${secret}`])];
    throw new ConfigError(`${name} is not configured on this deployment: ${missing.join(", and ")}`);
  }
  try {
    return { url: checkServiceUrl(kind, { name: env, value: url }), credential: checkCredential({ name: `the secret's ${secret}`, value: credential }) };
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}
