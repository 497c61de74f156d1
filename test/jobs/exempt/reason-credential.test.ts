/**
 * An exemption's reason leaves the process as GitLab writes anyone on the project can read (a commit to
 * the policy file, the merge request's description): a reason that quotes a token (a requester pasting
 * one by mistake, or a registered credential) was committed to the policy's history and shown in the
 * merge request, while the Slack reply to the same command showed it masked (the redact14 review). It is
 * refused before any request, the error naming the option and never the value.
 */
import { describe, expect, it } from "vitest";
import { parseExempt } from "../../../functions/shared/slack/exempt-command.ts";
import { checkExemptRequest, ExemptInputError } from "../../../lib/policy/exemption-request.ts";
import { registerSecret } from "../../../lib/redact/index.ts";

const REGISTERED = "n8n-key-registered-0123456789abcdef";
registerSecret(REGISTERED);
const NOW = new Date("2026-01-01T00:00:00Z");
const given = (reason: string) => ({ project: "acme/api", group: "partners/x", until: "2099-01-01", reason });

describe("an exemption request whose reason holds a credential", () => {
  it.each([
    ["a token-shaped word", "glpat-AbCdEfGhIjKlMnOpQrSt"],
    ["a registered credential", REGISTERED],
    ["a registered credential, URL-encoded", REGISTERED.replaceAll("-", "%2D")],
  ])("%s is refused, the error naming --reason and quoting nothing of it", (_name, credential) => {
    let error: unknown;
    try {
      checkExemptRequest(given(`pen test, token ${credential}`), NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ExemptInputError);
    expect((error as Error).message).toMatch(/--reason holds a credential/);
    expect((error as Error).message).not.toContain(credential.slice(0, 8));
  });

  it("from Slack, the reply says so by position and quotes nothing of it", () => {
    const parsed = parseExempt(["acme/api", "partners/x", "reason", "pen", "test,", "token", "glpat-AbCdEfGhIjKlMnOpQrSt"], NOW);
    expect(parsed).toEqual({ error: expect.stringContaining("the reason (the words after word 4) holds a credential") });
    expect(JSON.stringify(parsed)).not.toContain("AbCdEfGh");
  });

  it("chat-ops, which judges no caller of a policy in a repository, does not tell whether the reason holds a registered credential (the Worker does, once the caller is allowed)", () => {
    const parsed = parseExempt(["acme/api", "partners/x", "reason", "guess", REGISTERED], NOW);
    expect(parsed).toEqual({ request: expect.objectContaining({ reason: `guess ${REGISTERED}` }) });
  });

  it("a reason naming a token without quoting it is taken", () => {
    expect(checkExemptRequest(given("the glpat token of the partners' bot reads this project"), NOW).reason).toMatch(/glpat token/);
  });
});
