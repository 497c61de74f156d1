/**
 * A service's failures told as the setting to fix. A wrong address or credential otherwise surfaces as
 * "GET /api/v4/user failed: ECONNREFUSED", which names neither GITLAB_URL nor what to change. Each
 * explained error keeps its class, status and code (the jobs, and the Lambda's retry with a rotated
 * secret, look at those) and ends with the original message. Connection failures and redirects are
 * explained only until the service first answers: after that they are outages, not settings. What a
 * service's answers mean is its client's to say (ServiceTerms: lib/gitlab, lib/n8n); what its settings
 * are called, the front end's (SettingNames: the CLI's variables, or a Lambda's secret fields).
 */
import { ANSWER_TIMEOUT } from "./deadline.ts";
import { HttpError, NetworkError, RedirectError } from "./errors.ts";
import { createHttpClient, type HttpClient, type HttpClientOptions } from "./client.ts";
import type { Send } from "./types.ts";
import { proxiesSet, proxyRefused, proxyUrl, type ProxySettings } from "./transport.ts";

/**
 * What the errors of a service's requests call its two settings: the CLI's environment variables,
 * or in a Lambda function the address's variable and the secret's field.
 */
export interface SettingNames {
  url: string;
  credential: string;
}

/** What a service's answers say about its settings. */
export interface ServiceTerms {
  /** How messages name the service. */
  service: string;
  /** The token check's route: every instance answers it, so a 404 there means the API is not at the address. */
  probeRoute: string;
  /** Completes "is GITLAB_URL …, or is a sign-in proxy in front of it?" for an answer that is not JSON. */
  addressIs: string;
  /** Completes "GITLAB_TOKEN was refused (401): …". */
  refusedBecause: string;
  /** Completes "GITLAB_URL (address): …" after a 404 on the probe route. */
  notHere(address: URL): string;
  /** Completes "GITLAB_TOKEN …" after a 403 about the credential's scope; undefined for any other 403. */
  missingScope(err: HttpError): string | undefined;
}

/** A service's client whose errors name the settings it was made from: `terms` are the service's, `names` the front end's. */
export function createServiceClient(opts: HttpClientOptions & { address: URL; terms: ServiceTerms; names: SettingNames }): HttpClient {
  const { address, terms, names, ...options } = opts;
  const http = createHttpClient({ service: terms.service, notJsonHint: notJsonHint(terms, names), ...options });
  return explainFailures(http, terms, names, address, options.transport?.proxy);
}

export function notJsonHint(terms: ServiceTerms, names: SettingNames): string {
  return `is ${names.url} ${terms.addressIs}, or is a sign-in proxy in front of it?`;
}

/**
 * `http` with every failure of its requests explained in terms of `names`; `address` is the configured one,
 * `proxySettings` the egress proxies set, which a failure to connect may be the failure of.
 */
export function explainFailures(http: HttpClient, terms: ServiceTerms, names: SettingNames, address: URL, proxySettings?: ProxySettings): HttpClient {
  const proxy = proxiesSet(proxySettings);
  const shown = http.redactor.text(address.origin + address.pathname.replace(/\/+$/, ""));
  const url = (finding: string) => `${names.url} (${shown}): ${finding}`;

  const explain = (err: unknown, firstContact: boolean): unknown => {
    if (err instanceof HttpError) {
      const said = answerMeaning(err);
      return said === undefined ? err : new ExplainedHttpError(err, http.redactor.text(`${said} (${err.message})`));
    }
    if (!firstContact) return err;
    if (err instanceof NetworkError) {
      const { code, method, route, path, mayHaveReachedServer } = err;
      const refused = proxyRefused(code);
      const through = proxy === undefined || refused !== undefined ? "" : `; an egress proxy is set, ${proxy} (HTTPS_PROXY, HTTP_PROXY), unless NO_PROXY excepts this host: is it right, and up?`;
      const meaning = refused === undefined ? connectionMeaning(code, address, terms.service) : proxyRefusalMeaning(refused, address, proxySettings);
      const message = http.redactor.text(url(`${meaning}${through} (${err.message})`));
      return new NetworkError({ code, method, route, path, mayHaveReachedServer, message, cause: err });
    }
    // The Location is the server's to choose (or a proxy's, or whoever answers at the address): its origin is
    // to be checked, not trusted, before the credential goes there.
    if (err instanceof RedirectError) return new RedirectError(http.redactor.text(url(`${err.message} — if that address is your ${terms.service}'s (check it: whoever answers here chose it), give it instead`)), { cause: err });
    return err;
  };

  const answerMeaning = (err: HttpError): string | undefined => {
    if (err.status === 401) {
      // A sign-in proxy's page, not the API refusing the credential.
      if (/html/i.test(err.headers["content-type"] ?? "")) return url(`answered 401 with an HTML page, not ${terms.service}'s API — is a sign-in proxy in front of it?`);
      return `${names.credential} was refused (401): ${terms.refusedBecause}`;
    }
    if (err.status === 403) {
      const scope = terms.missingScope(err);
      return scope && `${names.credential} ${scope}`;
    }
    if (err.status === 404 && err.route === terms.probeRoute) return url(terms.notHere(address));
    return undefined;
  };

  const send: Send = async (req) => {
    try {
      return await http.send(req);
    } catch (err) {
      // lib/http's own word on whether the service has answered (an error answer counts) decides.
      throw explain(err, !http.contact.answered);
    }
  };
  return { ...http, send };
}

/**
 * What an egress proxy's refusal (its status) says, and the fix. The proxy is the one undici takes for
 * `address` (EnvHttpProxyAgent): HTTPS_PROXY for https://, where set, else HTTP_PROXY.
 */
function proxyRefusalMeaning(status: number, address: URL, settings: ProxySettings | undefined): string {
  const [variable, set] = address.protocol === "https:" && settings?.httpsProxy ? ["HTTPS_PROXY", settings.httpsProxy] : ["HTTP_PROXY", settings?.httpProxy ?? ""];
  const at = proxyUrl(set);
  const proxy = `the egress proxy ${at?.host ?? ""} (${variable})`;
  if (status === 407) {
    return at?.username
      ? `${proxy} refused the credentials in its address (407) — are they right (URL-encoded)?`
      : `${proxy} asks for credentials (407): give them in ${variable}, as USER:PASSWORD@ before its host (${at?.host ?? "HOST:PORT"}), URL-encoded`;
  }
  if (status === 403) return `${proxy} refused to connect to this host (403) — does it allow it, or should NO_PROXY except it?`;
  return `${proxy} did not connect to this host (it answered ${status}) — is the host right, and up?`;
}

/** What a connection failure says about the address, and the likely fix. */
export function connectionMeaning(code: string, address: URL, service: string): string {
  const { hostname, protocol } = address;
  // The same port, said explicitly: the server found is on it, whatever the other scheme's default.
  const as = (scheme: string) => `${scheme}//${hostname}:${address.port || (protocol === "https:" ? 443 : 80)}${address.pathname.replace(/\/+$/, "")}`;
  if (code === "ECONNREFUSED") return "connection refused — is the host and port right?";
  if (code === "ENOTFOUND") return `the host ${hostname} could not be found — is its name right?`;
  if (code === "EAI_AGAIN") return `the host ${hostname} could not be found (DNS did not answer) — is its name right, and DNS reachable from here?`;
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return `the host ${hostname} cannot be reached from here — is the address right, or is a VPN or proxy needed?`;
  if (code === "UND_ERR_CONNECT_TIMEOUT" || code === "ETIMEDOUT") return "no connection in time — is the host and port right, and reachable from here (a firewall, a VPN)?";
  if (code === ANSWER_TIMEOUT) return `connected, but no answer in time — is ${service} at this address, and up?`;
  if (protocol === "https:" && PLAIN_HTTP.has(code)) return `the server speaks plain http: use ${as("http:")}`;
  if (protocol === "https:" && code === "EPROTO") return `the TLS handshake failed — if the server speaks plain http, use ${as("http:")}`;
  if (protocol === "http:" && CLOSED.has(code)) return `the server closed the connection without answering — if it speaks https, use ${as("https:")}`;
  if (UNTRUSTED.has(code)) return "its TLS certificate is not trusted (self-signed, or signed by a private CA?) — point NODE_EXTRA_CA_CERTS at the file of the CA that signed it";
  if (code === "CERT_HAS_EXPIRED") return "its TLS certificate has expired — renew it on the server";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") return `its TLS certificate is not for ${hostname} — use the host name the certificate names`;
  return `the request failed (${code}) — is ${service} at this address?`;
}

/** OpenSSL's words for a TLS handshake answered in plain http. */
const PLAIN_HTTP = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG", "ERR_SSL_HTTP_REQUEST"]);
/** A TLS server hangs up on plain http without a word. */
const CLOSED = new Set(["UND_ERR_SOCKET", "ECONNRESET"]);
const UNTRUSTED = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
]);

/** An HttpError reworded: status, route and the rest stay for the callers that look at them. */
class ExplainedHttpError extends HttpError {
  constructor(original: HttpError, message: string) {
    super(original);
    this.message = message;
    this.cause = original;
  }
}
