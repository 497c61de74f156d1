/**
 * GitLab and n8n clients for one job run: addresses from the environment, credentials from the secret.
 * A deployment may use only one of the two services, so either may be left unconfigured; a job that
 * needs it then fails before any request, naming everything that is missing. What is there is checked
 * as the CLI checks it (lib/config/service-config.ts), naming the variable or the secret's field.
 */
import { checkCredential, checkServiceUrl, GITLAB, lambdaSettingNames, N8N, type PlainHttp } from "../../../lib/config/service-config.ts";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { HttpError, type SettingNames } from "../../../lib/http/index.ts";
import type { WaitEvent } from "../../../lib/http/types.ts";
import { N8nClient } from "../../../lib/n8n/index.ts";
import { logger } from "../lambda/logger.ts";
import { secretHolding, type Secrets } from "./secrets.ts";
import { ConfigError } from "./settings.ts";

const SERVICES = { gitlab: GITLAB, n8n: N8N } as const;

/** A long wait (a Retry-After, a backoff, a slow answer) is logged as it starts, not only when the run ends. */
const onWait = ({ message, kind, route, attempt, waitMs }: WaitEvent) => logger.info("waiting", { detail: message, kind, route, attempt, waitMs });

export function gitlabClient(secrets: Secrets): GitLabClient {
  const { url, credential, settingNames } = configured("gitlab", secrets);
  return new GitLabClient({ url, token: credential, settingNames, onWait });
}

/**
 * The client a pipeline job sends every request with: the secret's pipelineToken when it has one (the
 * pipeline runs as that token's user, and the checks see what it sees), else gitlabToken.
 */
export function pipelineClient(secrets: Secrets): GitLabClient {
  const { url, credential, settingNames } = configured("gitlab", secrets, pipelineField(secrets));
  return new GitLabClient({ url, token: credential, settingNames, onWait });
}

/** Which field of the secret pipelines are started with. */
export const pipelineField = (secrets: Secrets): "pipelineToken" | "gitlabToken" => (secrets.pipelineToken === undefined ? "gitlabToken" : "pipelineToken");

export function n8nClient(secrets: Secrets): N8nClient {
  const { url, credential, settingNames } = configured("n8n", secrets);
  return new N8nClient({ url, apiKey: credential, settingNames, onWait });
}

/**
 * Whether GitLab or n8n refused the credential a client was made with: a 401 from lib/http, or an
 * error caused by one (the workflows job words n8n's 401 itself).
 */
export function isRefusedCredential(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof HttpError && e.status === 401) return true;
  return false;
}

/**
 * Plain http:// to another host only when the deployment says so: sst.config.ts passes the
 * WARDEN_ALLOW_HTTP=1 that `sst deploy` ran with to the functions.
 */
function plainHttp(): PlainHttp {
  return { allowed: process.env["WARDEN_ALLOW_HTTP"] === "1", howToAllow: "deploy with WARDEN_ALLOW_HTTP=1" };
}

/** The address and credential, checked, and what errors call them: the function's variable and the secret's field. */
function configured(service: keyof typeof SERVICES, secrets: Secrets, field: keyof Secrets = SERVICES[service].secretField): { url: string; credential: string; settingNames: SettingNames } {
  const kind = SERVICES[service];
  const secret = secretHolding(field);
  const settingNames = lambdaSettingNames(kind, field, secret);
  const url = process.env[kind.urlVariable];
  const credential = secrets[field];
  if (!url || !credential) {
    const missing = [...(url ? [] : [`${kind.urlVariable} is not set`]), ...(credential ? [] : [`${secret} has no ${field}`])];
    throw new ConfigError(`${kind.service} is not configured on this deployment: ${missing.join(", and ")}`);
  }
  try {
    return { url: checkServiceUrl(kind, { name: settingNames.url, value: url }, plainHttp()), credential: checkCredential({ name: settingNames.credential, value: credential }), settingNames };
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}
