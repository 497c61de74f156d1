/**
 * Settings checked before the first request: each mistake gets an immediate error naming the variable
 * and what is expected, exit 1, and no request; the credential itself is never quoted.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { startN8nSim, type N8nSim } from "../../sim/n8n/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";
import { fragmentsOf } from "../support/fragments.ts";

const N8N_KEY = "n8n-api-key-settings-7c2e";

let gitlab: GitLabSim;
let n8n: N8nSim;
let gitlabEnv: Record<string, string>;
let n8nEnv: Record<string, string>;

beforeAll(async () => {
  gitlab = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 5 }).dataset });
  n8n = await startN8nSim({ generation: 2, workflows: [], apiKeys: { [N8N_KEY]: {} } });
  gitlabEnv = { GITLAB_URL: gitlab.url, GITLAB_TOKEN: gitlab.token, WARDEN_POLICY: policyFile(standardPolicy()) };
  n8nEnv = { N8N_URL: n8n.url, N8N_API_KEY: N8N_KEY, WARDEN_POLICY: policyFile("version: 1\nn8n:\n  workflows: { keepActive: [] }\n") };
});
afterAll(() => Promise.all([gitlab.close(), n8n.close()]));
beforeEach(() => gitlab.resetCounters());


describe("GitLab settings", () => {
  const cases: [string, string, () => string, RegExp][] = [
    ["no scheme", "GITLAB_URL", () => "gitlab.example.com", /^GITLAB_URL is not an http:\/\/ or https:\/\/ address, got "gitlab\.example\.com"/],
    ["ftp://", "GITLAB_URL", () => gitlab.url.replace("http:", "ftp:"), /^GITLAB_URL uses ftp:\/\/, not http:\/\/ or https:\/\//],
    ["/api/v4", "GITLAB_URL", () => `${gitlab.url}/api/v4`, /^GITLAB_URL ends with \/api\/v4, got .*Warden adds \/api\/v4 itself/],
    ["a query", "GITLAB_URL", () => `${gitlab.url}/?per_page=5`, /^GITLAB_URL has a query \(\?…\) or fragment \(#…\)/],
    ["a fragment", "GITLAB_URL", () => `${gitlab.url}/#top`, /^GITLAB_URL has a query \(\?…\) or fragment \(#…\)/],
    ["user:password", "GITLAB_URL", () => gitlab.url.replace("//", "//root:hunter2pass@"), /^GITLAB_URL carries a user name or password/],
    // An "@" in the path is no GitLab's (a relative URL root is a plain path): a token's, maybe, and every later error would quote it.
    ["an @ in the path", "GITLAB_URL", () => `${gitlab.url}/hunter2pass@x`, /^GITLAB_URL has an "@" in its path, got an address with @ \(not shown\)/],
    ["a trailing newline", "GITLAB_TOKEN", () => `${gitlab.token}\n`, /^GITLAB_TOKEN ends with a newline: check how it was set/],
    ["a carriage return", "GITLAB_TOKEN", () => `${gitlab.token}\r`, /^GITLAB_TOKEN ends with a carriage return/],
    // A credential's problem is named by its kind alone: a position, its length or the character would be part of what may be the real token.
    ["a space", "GITLAB_TOKEN", () => `${gitlab.token} x`, /^GITLAB_TOKEN contains a space: check how it was set/],
    ["a control character", "GITLAB_TOKEN", () => `${gitlab.token}\x07`, /^GITLAB_TOKEN contains a control character: check how it was set/],
    ["a non-ASCII character", "GITLAB_TOKEN", () => `${gitlab.token}é`, /^GITLAB_TOKEN contains a non-ASCII character: check how it was set/],
    // An address's is located (it is no secret), unless it has an "@": a password's.
    ["a space in the address", "GITLAB_URL", () => `${gitlab.url}/a b`, /^GITLAB_URL contains a space at position \d+ of \d+: check how it was set/],
    ["a non-ASCII password", "GITLAB_URL", () => gitlab.url.replace("//", "//root:hunter2pässword@"), /^GITLAB_URL contains a non-ASCII character: check how it was set/],
  ];
  it.each(cases)("%s in %s: an immediate error naming it, exit 1, no request", async (_case, name, value, message) => {
    const started = Date.now();
    const run = await warden(["enforce"], { ...gitlabEnv, [name]: value() });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.replace(/^warden enforce: /, "")).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(gitlab.counters.requests).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const piece of [...fragmentsOf(gitlab.token), "hunter2pass"]) expect(run.stderr).not.toContain(piece);
    if (name === "GITLAB_TOKEN" || value().includes("@")) expect(run.stderr).not.toMatch(/position|U\+|\b1[5-9]\b|ä|é/);
  });
});

describe("a credential put in the address instead of its own setting", () => {
  // Not shaped like a token and not registered: only the check's own wording can keep it out.
  const SECRET = "s3cr3t-Qz9vK7wL2xJ5-0042";
  it.each([
    ["GITLAB_URL", ["enforce"], () => gitlabEnv, () => `${gitlab.url}/?private_token=${SECRET}`],
    ["GITLAB_URL", ["enforce"], () => gitlabEnv, () => `${gitlab.url}/#access_token=${SECRET}`],
    ["GITLAB_URL", ["enforce"], () => gitlabEnv, () => `gitlab.example.com/?private_token=${SECRET}`],
    ["N8N_URL", ["workflows"], () => n8nEnv, () => `${n8n.url}/?apikey=${SECRET}`],
  ] as [string, string[], () => Record<string, string>, () => string][])("%s with it in the query or fragment: refused, the value never quoted", async (name, args, base, value) => {
    const run = await warden(args, { ...base(), [name]: value() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^warden \\w+: ${name} `));
    for (const piece of fragmentsOf(SECRET)) expect(run.stderr).not.toContain(piece);
  });
});

describe("n8n settings", () => {
  it.each([
    ["N8N_URL", () => `${n8n.url}/api/v1`, /^N8N_URL ends with \/api\/v1/],
    ["N8N_API_KEY", () => `${N8N_KEY}\n`, /^N8N_API_KEY ends with a newline/],
  ])("%s: an immediate error naming it, no request", async (name, value, message) => {
    const before = n8n.counters.requests;
    const run = await warden(["workflows"], { ...n8nEnv, [name]: value() });
    expect(run.code).toBe(1);
    expect(run.stderr.replace(/^warden workflows: /, "")).toMatch(message);
    expect(n8n.counters.requests).toBe(before);
    for (const piece of fragmentsOf(N8N_KEY)) expect(run.stderr).not.toContain(piece);
  });
});

describe("--request-timeout and WARDEN_REQUEST_TIMEOUT", () => {
  it.each([
    [["--request-timeout", "0"], {}, '--request-timeout takes a positive number of seconds, got "0"'],
    [["--request-timeout", "soon"], {}, '--request-timeout takes a positive number of seconds, got "soon"'],
    [[], { WARDEN_REQUEST_TIMEOUT: "-5" }, 'WARDEN_REQUEST_TIMEOUT takes a positive number of seconds, got "-5"'],
    [[], { WARDEN_REQUEST_TIMEOUT: "" }, 'WARDEN_REQUEST_TIMEOUT takes a positive number of seconds, got ""'],
    // Over Node's timer limit (2^31-1 ms, about 24.8 days) a deadline would fire after 1 ms, blaming GITLAB_URL.
    [["--request-timeout", "2200000"], {}, '--request-timeout takes at most 86400 seconds (one day): it is the deadline of each request attempt, not of the run; got "2200000"'],
    [[], { WARDEN_REQUEST_TIMEOUT: "86401" }, 'WARDEN_REQUEST_TIMEOUT takes at most 86400 seconds (one day): it is the deadline of each request attempt, not of the run; got "86401"'],
  ] as [string[], Record<string, string>, string][])("%j %j is refused naming the setting", async (args, extra, message) => {
    const run = await warden(["enforce", ...args], { ...gitlabEnv, ...extra });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`warden enforce: ${message}\n`);
    expect(gitlab.counters.requests).toBe(0);
  });

  it.each([
    ["--request-timeout 1", ["--request-timeout", "1"], {}],
    ["WARDEN_REQUEST_TIMEOUT=1", [], { WARDEN_REQUEST_TIMEOUT: "1" }],
  ] as [string, string[], Record<string, string>][])("%s gives up on an answer after 1 s and tries again", async (_name, args, extra) => {
    gitlab.addFaults({ kind: "delay", ms: 6_000, route: "GET /user", times: 1 });
    const started = Date.now();
    const run = await warden(["enforce", "--json", ...args], { ...gitlabEnv, ...extra });
    expect(reportJson(run.stdout)).toMatchObject({ job: "enforce", summary: { complete: true } });
    expect(gitlab.counters.byRoute["GET /user"]).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
