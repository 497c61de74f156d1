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

/**
 * What the process printed since the test began. The streams and console are wrapped once a process:
 * a worker that runs file after file (the "shared" project in vitest.config.ts) runs this module again
 * for each, and a second wrapper would print everything twice over and keep it.
 */
interface Capture {
  text: string;
}
const CAPTURE = Symbol.for("warden.test.captured-output");
const holder = globalThis as { [CAPTURE]?: Capture };
const capture: Capture = holder[CAPTURE] ?? captureStreams();
captureConsole();

function captureStreams(): Capture {
  const installed: Capture = { text: "" };
  holder[CAPTURE] = installed;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      installed.text += typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString();
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
  return installed;
}

/** vitest sends console output to the runner without touching the streams above; it may give a file a console of its own. */
function captureConsole(): void {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method] as ((...args: unknown[]) => void) & { [CAPTURE]?: true };
    if (original[CAPTURE]) continue;
    const wrapped = Object.assign((...args: unknown[]) => {
      capture.text += format(...args);
      original.apply(console, args);
    }, { [CAPTURE]: true as const });
    console[method] = wrapped;
  }
}

beforeEach(() => {
  capture.text = "";
});

afterEach(() => {
  const leaked = CREDENTIAL_PATTERNS.map((p) => capture.text.match(p)?.[0]).filter(Boolean);
  expect(leaked, "a credential appeared in this test's output").toEqual([]);
});
