/**
 * The address and credential of a service (GitLab, n8n), checked before the first request. A token
 * exported with its newline, or a URL given with /api/v4, would otherwise surface as seconds of
 * retries and an error from deep inside the HTTP stack that names no setting. Each check names the
 * setting (an environment variable, or a field of the Lambda's secret) and what is expected, and
 * never quotes a credential. Pure: the CLI and the Lambda functions pass the values they read.
 */
import { GITLAB_SETTINGS } from "../gitlab/settings.ts";
import { isLoopbackHost, type SettingNames } from "../http/index.ts";
import { N8N_SETTINGS } from "../n8n/settings.ts";

export class ServiceConfigError extends Error {
  override name = "ServiceConfigError";
}

export interface ServiceKind {
  /** How messages name the service. */
  service: string;
  /** The API path Warden appends itself, which the address must not carry. */
  apiPath: string;
  /** The environment variables of the address (the CLI's and the Lambda functions') and of the CLI's credential. */
  urlVariable: string;
  credentialVariable: string;
  /** The Lambda secret's field that holds the credential. */
  secretField: "gitlabToken" | "n8nApiKey";
}

export const GITLAB = { service: "GitLab", apiPath: "/api/v4", urlVariable: GITLAB_SETTINGS.url, credentialVariable: GITLAB_SETTINGS.credential, secretField: "gitlabToken" } as const satisfies ServiceKind;
export const N8N = { service: "n8n", apiPath: "/api/v1", urlVariable: N8N_SETTINGS.url, credentialVariable: N8N_SETTINGS.credential, secretField: "n8nApiKey" } as const satisfies ServiceKind;

/** A setting's value with the name to blame when it is wrong. */
export interface Setting {
  name: string;
  value: string;
}


/** `field`: the secret's field holding the credential, when not the service's usual one (a pipeline token, say); `secret`: which secret holds it. */
export function lambdaSettingNames(kind: ServiceKind, field: string = kind.secretField, secret = "the secret"): SettingNames {
  return { url: kind.urlVariable, credential: `${secret}'s ${field}` };
}

/**
 * Whether plain http:// may be used for a host that is not this machine, and, when not, how the
 * caller's front end lets it (the CLI's option and variable, the deployment's variable).
 */
export interface PlainHttp {
  allowed: boolean;
  howToAllow: string;
}

/**
 * Returns the address unchanged, or throws naming `url.name` and what is wrong with it. A plain
 * http:// address of another host is refused unless `plainHttp.allowed`: every request would carry
 * the token in clear, readable and replayable by anyone on the way.
 */
export function checkServiceUrl(kind: ServiceKind, { name, value }: Setting, plainHttp: PlainHttp): string {
  const problem = characterProblem(value, !value.includes("@"));
  if (problem) throw new ServiceConfigError(`${name} ${problem}: check how it was set`);
  const expected = `expected the instance's address, such as https://host.example.com (optionally with a path), without ${kind.apiPath}`;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || !URL.canParse(value)) {
    throw new ServiceConfigError(`${name} is not an http:// or https:// address, got ${shown(value)}: ${expected}`);
  }
  const url = new URL(value);
  // Before anything that quotes the value: a password must not be echoed.
  if (url.username || url.password) {
    throw new ServiceConfigError(`${name} carries a user name or password: give the credential in its own setting, not in the address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ServiceConfigError(`${name} uses ${url.protocol}//, not http:// or https://: ${expected}`);
  }
  // No GitLab or n8n path has one (a relative URL root is a plain path): a token's end, maybe, which every later error would quote.
  if (url.pathname.includes("@")) {
    throw new ServiceConfigError(`${name} has an "@" in its path, got ${shown(value)}: ${expected}`);
  }
  if (value.includes("?") || value.includes("#")) {
    throw new ServiceConfigError(`${name} has a query (?…) or fragment (#…), got ${shown(value)}: ${expected}`);
  }
  if (url.pathname.replace(/\/+$/, "").toLowerCase().endsWith(kind.apiPath)) {
    throw new ServiceConfigError(`${name} ends with ${kind.apiPath}, got ${shown(value)}: ${expected} (Warden adds ${kind.apiPath} itself)`);
  }
  // The hosts a plain http:// address may name without leave: this machine, where nothing on the network can
  // read the token on its way (nor does an egress proxy take it: lib/http/transport.ts).
  if (url.protocol === "http:" && !plainHttp.allowed && !isLoopbackHost(url.hostname)) {
    throw new ServiceConfigError(
      `${name} is plain http:// to ${url.host}, which would send ${kind.service}'s credential unencrypted over the network: ` +
        `use https://, or, only on a network you trust, ${plainHttp.howToAllow}`,
    );
  }
  return value;
}

/**
 * The value for an error message, without what may hold a credential: an address with an "@" may have a
 * password, so it is not shown; a query or fragment may have a token (`?private_token=`, `#access_token=`),
 * so it is cut off. Whatever the parameter's name: the value need not be registered with lib/redact.
 */
function shown(value: string): string {
  if (value.includes("@")) return "an address with @ (not shown)";
  const at = value.search(/[?#]/);
  return at < 0 ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, at))} (its query or fragment not shown)`;
}

/** Returns the credential unchanged, or throws naming `credential.name` (never quoting the value). */
export function checkCredential({ name, value }: Setting): string {
  const problem = characterProblem(value, false);
  if (problem) throw new ServiceConfigError(`${name} ${problem}: check how it was set (a token is printable ASCII without spaces)`);
  return value;
}

/**
 * What makes a value unusable in an HTTP header or an address: whitespace, control or non-ASCII
 * characters. In an address, named by code point and position, which say where to look without
 * quoting it; in a credential (or an address with an "@", which may hold a password: `shown`) by its
 * kind alone: a position, the length or a character would tell whoever sees the error (a chat user, a
 * CI log's reader) part of a value that may be a real token with one stray character in it.
 */
function characterProblem(value: string, located: boolean): string | undefined {
  if (value === "") return "is empty";
  const last = value.length - 1;
  if (value[last] === "\n") return "ends with a newline";
  if (value[last] === "\r") return "ends with a carriage return (a Windows line ending?)";
  const bad = /[^\x21-\x7e]/.exec(value);
  if (!bad) return undefined;
  const char = bad[0];
  const where = located ? ` at position ${bad.index + 1} of ${value.length}` : "";
  const code = located ? ` (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")})` : "";
  if (char === " ") return bad.index === 0 || bad.index === last ? `starts or ends with a space` : `contains a space${where}`;
  if (char === "\n" || char === "\r") return `contains a line break${where}`;
  return /[\x00-\x1f\x7f-\x9f]/.test(char) ? `contains a control character${code}${where}` : `contains a non-ASCII character${code}${where}`;
}
