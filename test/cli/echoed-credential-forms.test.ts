/**
 * A credential that a server (or anything in front of it) sends back was masked only as Warden wrote it
 * (or percent-, Markdown-, JSON- or CSV-escaped). Sent back in another form, whole, it reached the output in
 * clear, and so every reader of the CI log, the merge request note or the Slack channel: upper-cased,
 * base64, hex, reversed, with a zero-width character or a line break between its characters, or cut short
 * of the 20 characters the GitLab shape needed; or wrapped onto an indented line, folded as an HTTP header
 * is (CRLF, then a TAB), or with a TAB in it, which printed it in two halves, neither long enough for the
 * GitLab shape. lib/redact masks each now: every form but the cut one still needs the whole credential,
 * and that one is masked by its shape, whoever's it is, so none tells a guesser anything.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedServer, json, type ScriptedServer } from "../support/server.ts";
import { policyFile, warden } from "../support/cli.ts";

const TOKEN = "glpat-Rv3kP8mQ2xL7nW4zT9aC";

/** How the answer gives the PRIVATE-TOKEN header back. The body of every form is the token, whole or all but one character. */
const FORMS: [name: string, form: (token: string) => string][] = [
  ["upper-cased", (t) => t.toUpperCase()],
  ["base64", (t) => Buffer.from(t).toString("base64")],
  ["hex", (t) => Buffer.from(t).toString("hex")],
  ["reversed", (t) => [...t].reverse().join("")],
  ["split across two lines", (t) => `${t.slice(0, 16)}\n${t.slice(16)}`],
  ["with a zero-width space between its characters", (t) => [...t].join("\u200b")],
  // Cut after "glpat-" and 12 characters: the first half is below the shape's 16, the second has no prefix.
  ["wrapped onto an indented continuation line (newline, then four spaces)", (t) => `${t.slice(0, 18)}\n    ${t.slice(18)}`],
  ["folded as an HTTP header is (CRLF, then a TAB)", (t) => `${t.slice(0, 18)}\r\n\t${t.slice(18)}`],
  ["with a TAB inside it", (t) => `${t.slice(0, 18)}\t${t.slice(18)}`],
  ["cut one character short (a server cutting what it quotes)", (t) => t.slice(0, -1)],
];

let current: (token: string) => string = (t) => t;
let server: ScriptedServer;
let env: Record<string, string>;

beforeAll(async () => {
  // A front that answers every request with a refusal quoting the credential the request carried, in the form the test sets.
  server = await scriptedServer((req, res) => json(res, 403, { message: `403 Forbidden: token ${current(String(req.headers["private-token"]))} lacks a scope` }));
  env = { GITLAB_URL: server.url, GITLAB_TOKEN: TOKEN, WARDEN_POLICY: policyFile("version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow:\n      - group: \"acme/**\"\n") };
});
afterAll(() => server.close());

describe("a credential a server sends back in another form", { timeout: 60_000 }, () => {
  it("is quoted in the error (the control: sent back as it went, it is masked)", async () => {
    current = (t) => t;
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("token [REDACTED] lacks a scope");
  });

  it.each(FORMS)("sent back %s, it does not reach stderr", async (_name, form) => {
    current = form;
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("lacks a scope");
    // Compared, not printed: a failure must not print the credential either.
    const shown = run.stderr.replaceAll("\\x0a", "\n").replaceAll("\\x0d", "\r").replaceAll("\\x09", "\t").replaceAll("\\u200b", "\u200b");
    expect(shown.includes(form(TOKEN)), "the credential, in that form, is in the CLI's stderr").toBe(false);
  });
});
