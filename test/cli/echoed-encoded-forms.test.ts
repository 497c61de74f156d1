/**
 * A credential a server (or a front before it) sent back in a form lib/redact did not know reached the
 * CLI's stderr (a CI log) in clear, though docs/security.md promised it masked however an escaper wrote
 * it, broken up by line breaks, in hex and in base64 (a review of redaction's outputs). Each case below is
 * one of those promises in a form a real encoder writes:
 *
 * - JSON's own \uXXXX escape of a punctuation character (valid JSON, written by encoders that escape
 *   everything but letters and digits), in a JSON error without a `message` field, which
 *   lib/http/errors.ts serviceMessage quoted as raw text;
 * - an HTML numeric character reference (&#45;, &#x2d;) in a plain-text answer (HTML encoders that escape
 *   every non-alphanumeric character, such as OWASP ESAPI's, write these);
 * - a wrapped line indented by more than 16 spaces (a pretty-printed, nested error), where
 *   lib/redact/broken-up.ts SEPARATOR stopped;
 * - base64 wrapped at 76 columns (MIME, RFC 2045) or 64 (PEM, `openssl base64`), where the line break
 *   falls inside the credential's encoding;
 * - hex as dumps write it, a space between bytes (xxd, hexdump, Wireshark).
 *
 * Each reader can undo the form by eye or with one command. lib/redact knows each now (and serviceMessage
 * quotes such JSON written again from its parse, its escapes undone); each still needs the whole credential.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { policyFile, warden } from "../support/cli.ts";

const TOKEN = "glpat-Rv3kP8mQ2xL7nW4zT9aC";

type Answer = (token: string, res: ServerResponse) => void;
const raw = (type: string, body: string) => (res: ServerResponse) => {
  res.writeHead(403, { "content-type": type });
  res.end(body);
};
/** The first 12 characters after "glpat-" and the rest: neither half long enough for the GitLab shape. */
const halves = (t: string) => [t.slice(0, 18), t.slice(18)] as const;

/** [name, the answer, the credential's form a reader would see in the output]. */
const FORMS: [string, Answer, (t: string) => string][] = [
  [
    "JSON-escaped as \\u002d, in a JSON error without a message field",
    (t, res) => raw("application/json", `{"detail":"token ${t.replace("-", "\\u002d")} lacks a scope"}`)(res),
    (t) => t.replace("-", "\\u002d"),
  ],
  [
    "with an HTML numeric character reference (&#45;) in plain text",
    (t, res) => raw("text/plain", `token ${t.replace("-", "&#45;")} lacks a scope`)(res),
    (t) => t.replace("-", "&#45;"),
  ],
  [
    "wrapped onto a line indented by 20 spaces",
    (t, res) => raw("text/plain", `token ${halves(t)[0]}\n${" ".repeat(20)}${halves(t)[1]} lacks a scope`)(res),
    (t) => halves(t)[1],
  ],
  [
    "in base64 wrapped at 76 columns (MIME), the break inside it",
    (t, res) => raw("text/plain", `request dump lacks a scope:\n${mime(`GET /api/v4/groups/acme HTTP/1.1\r\nprivate-token: ${t}\r\n`, 76)}`)(res),
    (t) => mime(`GET /api/v4/groups/acme HTTP/1.1\r\nprivate-token: ${t}\r\n`, 76).split("\n")[1]!,
  ],
  [
    "in hex with a space between bytes (a dump)",
    (t, res) => raw("text/plain", `token ${Buffer.from(t).toString("hex").replace(/(..)(?!$)/g, "$1 ")} lacks a scope`)(res),
    (t) => Buffer.from(t).toString("hex").replace(/(..)(?!$)/g, "$1 "),
  ],
];

function mime(text: string, width: number): string {
  return Buffer.from(text).toString("base64").replace(new RegExp(`(.{${width}})(?!$)`, "g"), "$1\n");
}

let current: Answer = (t, res) => raw("text/plain", `token ${t} lacks a scope`)(res);
let server: ScriptedServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await scriptedServer((req, res) => current(String(req.headers["private-token"]), res));
  env = { GITLAB_URL: server.url, GITLAB_TOKEN: TOKEN, WARDEN_POLICY: policyFile('version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow:\n      - group: "acme/**"\n') };
});
afterAll(() => server.close());

/** The CLI's stderr with its escapes of controls undone, as a reader takes it. */
const shown = (stderr: string) => stderr.replaceAll("\\x0a", "\n").replaceAll("\\x0d", "\r").replaceAll("\\x09", "\t");

/** Whether the output lets its reader rebuild the token: every form decoded as its reader would. */
function disclosed(stderr: string): boolean {
  const text = shown(stderr);
  const decoded = [
    text.replaceAll("\\u002d", "-").replaceAll("&#45;", "-"),
    text.replace(/\n +/g, ""),
    Buffer.from(text.replace(/[^A-Za-z0-9+/=\n]/g, " ").split(/\s+/).filter((w) => /^[A-Za-z0-9+/=]{8,}$/.test(w)).join(""), "base64").toString("latin1"),
    Buffer.from((text.match(/(?:[0-9a-f]{2} )+[0-9a-f]{2}/g) ?? []).join("").replaceAll(" ", ""), "hex").toString("latin1"),
  ];
  return decoded.some((d) => d.includes(TOKEN));
}

describe("a credential sent back in a form an encoder writes", { timeout: 60_000 }, () => {
  it("the control: sent back as it went, it is masked", async () => {
    current = (t, res) => raw("text/plain", `token ${t} lacks a scope`)(res);
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("token [REDACTED] lacks a scope");
  });

  it.each(FORMS)("sent back %s, it is not disclosed on stderr", async (_name, answer, form) => {
    current = answer;
    const run = await warden(["enforce"], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("lacks a scope");
    // Compared, not printed: a failure must not print the credential either.
    expect(shown(run.stderr).includes(form(TOKEN)), "the credential, in that form, is on the CLI's stderr").toBe(false);
    expect(disclosed(run.stderr), "the CLI's stderr lets its reader rebuild the credential").toBe(false);
  });
});
