import { describe, expect, it } from "vitest";
import { CREDENTIAL_PATTERNS } from "./no-credentials.ts";

// The guard itself: it must recognise every credential shape the tests use.
describe("the credential guard over test output", () => {
  it.each(["glpat-sim-admin", "token glpat-secret-token-123 leaked", "n8n-sim-key", "X-N8N-API-KEY: n8n-test-key-2", "slack-signing-secret-abc123"])(
    "recognises %s",
    (text) => expect(CREDENTIAL_PATTERNS.some((p) => p.test(text))).toBe(true),
  );

  it.each(["PRIVATE-TOKEN: [REDACTED]", "X-N8N-API-KEY header required", "glpat-", "GET /api/v4/user answered 401"])("lets %s through", (text) =>
    expect(CREDENTIAL_PATTERNS.some((p) => p.test(text))).toBe(false),
  );
});
