/**
 * A GitLab or n8n that is not where its settings say: the first request fails with a message naming
 * the setting (the CLI's variable, or the Lambda secret's field), what was found and the likely fix,
 * never a fragment of the credential. Real sockets throughout: the simulators, loopback servers that
 * answer as a wrong address would, a port bound and closed, and a name under .invalid (never resolved).
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GITLAB, lambdaSettingNames, N8N } from "../../lib/config/service-config.ts";
import { connectionMeaning } from "../../lib/http/index.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { HttpError, NetworkError } from "../../lib/http/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { startN8nSim, type N8nSim } from "../../sim/n8n/index.ts";
import { json, serve } from "../support/server.ts";
import { TEST_CERT, TEST_KEY } from "../support/tls-fixture.ts";
import { fragmentsOf } from "../support/fragments.ts";

/** One attempt: these tests are about the words. How soon a first contact gives up is the last describe's. */
const ONCE = { retry: { maxRetries: 0 } };
const N8N_KEY = "n8n-setting-errors-key-4f1d";

let sim: GitLabSim;
let n8n: N8nSim;
let tls: HttpsServer;
let tlsPort: number;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 5, seed: 3 }).dataset });
  n8n = await startN8nSim({ generation: 2, workflows: [], apiKeys: { [N8N_KEY]: {}, "n8n-list-less-key-0b7e": { scopes: ["workflow:read"] } } });
  tls = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (_req, res) => res.end("{}"));
  await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
  tlsPort = (tls.address() as AddressInfo).port;
});
afterAll(async () => {
  tls.closeAllConnections();
  await Promise.all([sim.close(), n8n.close(), new Promise((r) => tls.close(r))]);
});

/** A port that was bound a moment ago and is closed now: connecting is refused. */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

const gitlab = (url: string, token = sim.token, more = {}) => new GitLabClient({ url, token, ...ONCE, ...more });
const firstPage = async (client: N8nClient) => {
  for await (const page of client.listWorkflows().pages()) return page;
};

describe("GITLAB_URL that does not lead to GitLab", () => {
  it("a refused port: connection refused, is the host and port right?", async () => {
    const port = await closedPort();
    const err = await failure(gitlab(`http://127.0.0.1:${port}`).currentUser());
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).code).toBe("ECONNREFUSED");
    expect(err.message).toBe(`GITLAB_URL (http://127.0.0.1:${port}): connection refused — is the host and port right? (GET /api/v4/user failed: ECONNREFUSED)`);
  });

  it("an unknown host: it could not be found", async () => {
    const err = await failure(gitlab("https://gitlab.warden-test.invalid:8443/gitlab/").currentUser());
    expect(err.message).toMatch(/^GITLAB_URL \(https:\/\/gitlab\.warden-test\.invalid:8443\/gitlab\): the host gitlab\.warden-test\.invalid could not be found( \(DNS did not answer\))? — is its name right(, and DNS reachable from here)?\? \(GET \/gitlab\/api\/v4\/user failed: (ENOTFOUND|EAI_AGAIN)\)$/);
  });

  it("https:// against a plain-http server: it speaks plain http, use http://", async () => {
    const plain = await serve((_req, res) => json(res, 200, {}));
    const port = new URL(plain.url).port;
    const err = await failure(gitlab(`https://127.0.0.1:${port}`).currentUser());
    expect(err.message).toMatch(new RegExp(`^GITLAB_URL \\(https://127\\.0\\.0\\.1:${port}\\): the server speaks plain http: use http://127\\.0\\.0\\.1:${port} \\(GET /api/v4/user failed: [A-Z_]+\\)$`));
  });

  it("http:// against a TLS server: it hung up, use https:// if it speaks https", async () => {
    const err = await failure(gitlab(`http://127.0.0.1:${tlsPort}`).currentUser());
    expect(err.message).toMatch(
      new RegExp(`^GITLAB_URL \\(http://127\\.0\\.0\\.1:${tlsPort}\\): the server closed the connection without answering — if it speaks https, use https://127\\.0\\.0\\.1:${tlsPort} \\(`),
    );
  });

  it("a self-signed certificate: not trusted, and how to trust its CA", async () => {
    const err = await failure(gitlab(`https://127.0.0.1:${tlsPort}`).currentUser());
    expect(err.message).toMatch(/^GITLAB_URL \(https:\/\/127\.0\.0\.1:\d+\): its TLS certificate is not trusted .* NODE_EXTRA_CA_CERTS .*\(GET \/api\/v4\/user failed: DEPTH_ZERO_SELF_SIGNED_CERT\)$/);
  });

  it("a certificate for another host name: use the name it is for", async () => {
    // Trusted here (its CA given to this client), so what is left wrong is the name.
    const trusting = new Agent({ connect: { ca: TEST_CERT } });
    const err = await failure(gitlab(`https://127.0.0.1:${tlsPort}`, sim.token, { dispatcher: trusting }).currentUser());
    await trusting.close();
    expect(err.message).toMatch(/^GITLAB_URL \(https:\/\/127\.0\.0\.1:\d+\): its TLS certificate is not for 127\.0\.0\.1 — use the host name the certificate names \(GET \/api\/v4\/user failed: ERR_TLS_CERT_ALTNAME_INVALID\)$/);
  });

  it("a server that connects and never answers: is GitLab at this address, and up?", async () => {
    const silent = await serve(() => undefined);
    const err = await failure(gitlab(silent.url, sim.token, { requestTimeoutMs: 300 }).currentUser());
    expect(err.message).toMatch(/^GITLAB_URL \(http:\/\/127\.0\.0\.1:\d+\): connected, but no answer in time — is GitLab at this address, and up\? \(GET \/api\/v4\/user: no complete answer from GitLab within [\d.]+ s\)$/);
  });

  it("a path that is not GitLab's (404 on the token check): not at this address, or give the relative URL's path", async () => {
    const err = await failure(gitlab(`${sim.url}/git`).currentUser());
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(404);
    expect(err.message).toBe(
      `GITLAB_URL (${sim.url}/git): GitLab's API is not at this address — is it GitLab's? If GitLab runs under a relative URL, include its path (such as ${sim.url}/gitlab) (GET /git/api/v4/user answered 404: 404 Not Found)`,
    );
  });

  it("a 404 anywhere but the token check is about what was asked for, and keeps its words", async () => {
    const err = await failure(gitlab(sim.url).getProject("no/such-project"));
    expect(err.message).toBe("GET /api/v4/projects/no%2Fsuch-project answered 404: 404 Project Not Found");
  });

  it("a redirect to another origin on first contact: give the address it redirects to, once checked as yours", async () => {
    const proxy = await serve((_req, res) => res.writeHead(301, { location: `https://127.0.0.1:${tlsPort}/api/v4/user` }).end());
    const err = await failure(gitlab(proxy.url).currentUser());
    expect(err.message).toBe(
      `GITLAB_URL (${proxy.url}): GET /api/v4/user redirected to another origin (https://127.0.0.1:${tlsPort}); refused — if that address is your GitLab's (check it: whoever answers here chose it), give it instead`,
    );
  });

  it("once GitLab has answered, a lost connection is an outage, not a setting", async () => {
    const flaky = await serve((_req, res, n) => (n === 1 ? json(res, 200, { id: 1, username: "root" }) : res.socket?.destroy()));
    const client = gitlab(flaky.url);
    await client.currentUser();
    const err = await failure(client.currentUser());
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toMatch(/^GET \/api\/v4\/user failed: /);
  });
});

describe("failures loopback cannot stage, by their code", () => {
  it.each([
    ["EAI_AGAIN", "https://gitlab.example.com", "the host gitlab.example.com could not be found (DNS did not answer) — is its name right, and DNS reachable from here?"],
    ["EHOSTUNREACH", "https://10.1.2.3", "the host 10.1.2.3 cannot be reached from here — is the address right, or is a VPN or proxy needed?"],
    ["UND_ERR_CONNECT_TIMEOUT", "https://gitlab.example.com", "no connection in time — is the host and port right, and reachable from here (a firewall, a VPN)?"],
    // The server found is on the port asked for, whatever the other scheme's default.
    ["ERR_SSL_WRONG_VERSION_NUMBER", "https://gitlab.example.com/git/", "the server speaks plain http: use http://gitlab.example.com:443/git"],
    ["ECONNRESET", "http://gitlab.example.com", "the server closed the connection without answering — if it speaks https, use https://gitlab.example.com:80"],
    ["EPROTO", "https://gitlab.example.com:8443", "the TLS handshake failed — if the server speaks plain http, use http://gitlab.example.com:8443"],
    ["CERT_HAS_EXPIRED", "https://gitlab.example.com", "its TLS certificate has expired — renew it on the server"],
    ["UND_ERR_SOCKET", "https://gitlab.example.com", "the request failed (UND_ERR_SOCKET) — is GitLab at this address?"],
  ])("%s on %s", (code, url, meaning) => {
    expect(connectionMeaning(code, new URL(url), "GitLab")).toBe(meaning);
  });
});

describe("GITLAB_TOKEN that GitLab refuses", () => {
  it("401: the variable, and what makes a token refused", async () => {
    const err = await failure(gitlab(sim.url, "glpat-wrong-token-9c1e").currentUser());
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(401);
    expect(err.message).toBe("GITLAB_TOKEN was refused (401): expired, revoked, or made on another GitLab? (GET /api/v4/user answered 401: 401 Unauthorized)");
  });

  it("401 in a Lambda function: the secret's field", async () => {
    const err = await failure(gitlab(sim.url, "glpat-wrong-token-9c1e", { settingNames: lambdaSettingNames(GITLAB) }).currentUser());
    expect(err.message).toMatch(/^the secret's gitlabToken was refused \(401\): expired, revoked, or made on another GitLab\?/);
  });

  it("403 insufficient_scope: read_api for a read, api for a change", async () => {
    const scoped = await serve((_req, res) =>
      json(res, 403, { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "api read_api" }, {
        "www-authenticate": 'Bearer realm="Protected by OAuth 2.0", error="insufficient_scope", scope="api read_api"',
      }),
    );
    const read = await failure(gitlab(scoped.url).currentUser());
    expect(read).toBeInstanceOf(HttpError);
    expect(read.message).toBe("GITLAB_TOKEN lacks the read_api scope: dry runs need read_api, applying changes needs api (GET /api/v4/user answered 403: insufficient_scope)");
    const change = await failure(gitlab(scoped.url).unshareProject(7, 9));
    expect(change.message).toMatch(/^GITLAB_TOKEN lacks the api scope: applying changes needs api \(read_api is enough for dry runs\) \(DELETE \/api\/v4\/projects\/7\/share\/9 answered 403/);
  });

  it("a 403 about something else than the token's scope keeps GitLab's words", async () => {
    const forbidden = await serve((_req, res) => json(res, 403, { message: "403 Forbidden" }));
    const err = await failure(gitlab(forbidden.url).unshareProject(7, 9));
    expect(err.message).toBe("DELETE /api/v4/projects/7/share/9 answered 403: 403 Forbidden");
  });

  it("a sign-in proxy's 401 page is not GitLab refusing the token", async () => {
    const proxy = await serve((_req, res) => res.writeHead(401, { "content-type": "text/html" }).end("<html><body>Sign in</body></html>"));
    const err = await failure(gitlab(proxy.url).currentUser());
    expect(err.message).toMatch(/^GITLAB_URL \(http:\/\/127\.0\.0\.1:\d+\): answered 401 with an HTML page, not GitLab's API — is a sign-in proxy in front of it\?/);
  });
});

describe("no fragment of a credential in any of these messages", () => {
  const token = "glpat-echoed-by-server-5d2a7c";

  it.each([
    ["a 401", 401, { message: `401 Unauthorized: token ${token} is not valid` }],
    ["a 403 insufficient_scope", 403, { error: "insufficient_scope", error_description: `token ${token} lacks api` }],
    ["a 404 on the token check", 404, { error: `no route for ${token}` }],
  ])("a server echoing the token in %s", async (_case, status, body) => {
    const echo = await serve((_req, res) => json(res, status, body));
    const err = await failure(gitlab(echo.url, token).currentUser());
    expect(err.message).toMatch(/^(GITLAB_TOKEN|GITLAB_URL)/);
    for (const piece of fragmentsOf(token)) expect(err.message).not.toContain(piece);
  });

  it("a password in GITLAB_URL's user info is never shown", async () => {
    const port = await closedPort();
    const err = await failure(gitlab(`http://oauth2:glpat-userinfo-7a3e91@127.0.0.1:${port}/`).currentUser());
    expect(err.message).toMatch(/^GITLAB_URL \(http:\/\/127\.0\.0\.1:\d+\): connection refused/);
    expect(err.message).not.toContain("userinfo");
    expect(err.message).not.toContain("oauth2");
  });
});

describe("N8N_URL and N8N_API_KEY", () => {
  const client = (url: string, apiKey = N8N_KEY, more = {}) => new N8nClient({ url, apiKey, ...ONCE, ...more });

  it("a refused port", async () => {
    const port = await closedPort();
    const err = await failure(firstPage(client(`http://127.0.0.1:${port}`)));
    expect(err.message).toMatch(new RegExp(`^N8N_URL \\(http://127\\.0\\.0\\.1:${port}\\): connection refused — is the host and port right\\? \\(GET /api/v1/workflows\\?.* failed: ECONNREFUSED\\)$`));
  });

  it("401: N8N_API_KEY was refused", async () => {
    const err = await failure(firstPage(client(n8n.url, "n8n-unknown-key-22b4")));
    expect((err as HttpError).status).toBe(401);
    expect(err.message).toMatch(/^N8N_API_KEY was refused \(401\): wrong, expired or revoked, or made on another n8n\? \(GET \/api\/v1\/workflows\?.* answered 401: .+\)$/);
  });

  it("401 in a Lambda function: the secret's n8nApiKey", async () => {
    const err = await failure(firstPage(client(n8n.url, "n8n-unknown-key-22b4", { settingNames: lambdaSettingNames(N8N) })));
    expect(err.message).toMatch(/^the secret's n8nApiKey was refused \(401\)/);
  });

  it("403: the key lacks the scope, named", async () => {
    const err = await failure(firstPage(client(n8n.url, "n8n-list-less-key-0b7e")));
    expect((err as HttpError).status).toBe(403);
    expect(err.message).toMatch(/^N8N_API_KEY lacks the workflow:list scope: Warden needs workflow:list, and workflow:read, workflow:activate and workflow:deactivate to apply changes \(GET \/api\/v1\/workflows\?.* answered 403: Forbidden\)$/);
  });

  it("404 on the API path: not n8n's public API at this address", async () => {
    const err = await failure(firstPage(client(`${n8n.url}/n8n`)));
    expect(err.message).toMatch(
      new RegExp(`^N8N_URL \\(${n8n.url.replaceAll(".", "\\.")}/n8n\\): n8n's public API is not at this address — is it the instance's address .*N8N_PUBLIC_API_DISABLED.* \\(GET /n8n/api/v1/workflows\\?.* answered 404: not found\\)$`),
    );
  });
});

/**
 * With lib/http's defaults: a first contact that cannot connect is given up on at once (the fast fail
 * is lib/http's: connection errors are retried only once the service has answered in the run).
 */
describe("a wrong address is named within 2 s", () => {
  it.each([
    ["a refused port", async () => `http://127.0.0.1:${await closedPort()}`, /connection refused/],
    ["an unknown host", async () => "http://gitlab.warden-test.invalid", /could not be found/],
    ["https:// against plain http", async () => `https://127.0.0.1:${new URL((await serve((_req, res) => json(res, 200, {}))).url).port}`, /speaks plain http/],
  ])("%s", async (_case, url, words) => {
    const started = performance.now();
    const err = await failure(new GitLabClient({ url: await url(), token: sim.token }).currentUser());
    expect(err.message).toMatch(words);
    expect(performance.now() - started).toBeLessThan(2_000);
  }, 30_000);
});
