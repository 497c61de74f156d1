/**
 * Runs around every test (vitest setupFiles): whatever a test makes the process print — console,
 * Powertools Logger, anything on stdout or stderr — must not contain a credential. Tests use
 * credentials of recognisable shapes so this can find them.
 */
import { format } from "node:util";
import { afterEach, beforeEach, expect } from "vitest";

export const CREDENTIAL_PATTERNS: readonly RegExp[] = [
  /glpat-[A-Za-z0-9_-]+/, // GitLab tokens, as GitLab issues them
  /n8n-[a-z0-9-]*key[a-z0-9-]*/, // the n8n API keys the tests use (lower case, unlike the header name)
  /slack-signing-secret-[a-z0-9-]+/i, // Slack signing secrets the tests use
];

let captured = "";

for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    captured += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString();
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

// vitest sends console output to the runner without touching the streams above.
for (const method of ["log", "info", "warn", "error", "debug"] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    captured += format(...args);
    original(...args);
  };
}

beforeEach(() => {
  captured = "";
});

afterEach(() => {
  const leaked = CREDENTIAL_PATTERNS.map((p) => captured.match(p)?.[0]).filter(Boolean);
  expect(leaked, "a credential appeared in this test's output").toEqual([]);
});
