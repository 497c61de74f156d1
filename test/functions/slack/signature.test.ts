import { describe, expect, it } from "vitest";
import { MAX_SKEW_SECONDS, slackSignature, verifySlackSignature } from "../../../functions/shared/slack/signature.ts";

// Slack's worked example (api.slack.com, "Verifying requests from Slack").
const EXAMPLE = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body: "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};
const at = Number(EXAMPLE.timestamp);
const request = (over: Partial<{ timestamp: string | undefined; signature: string | undefined; body: string }> = {}) => {
  const { timestamp, signature, body } = { ...EXAMPLE, ...over };
  return { timestamp, signature, body: Buffer.from(body) };
};

describe("Slack request signature", () => {
  it("computes Slack's documented signature", () => {
    expect(slackSignature(EXAMPLE.secret, EXAMPLE.timestamp, EXAMPLE.body)).toBe(EXAMPLE.signature);
  });

  it("accepts a request signed with the secret within five minutes, either side", () => {
    expect(verifySlackSignature(EXAMPLE.secret, request(), at)).toEqual({ ok: true });
    expect(verifySlackSignature(EXAMPLE.secret, request(), at + MAX_SKEW_SECONDS)).toEqual({ ok: true });
    expect(verifySlackSignature(EXAMPLE.secret, request(), at - MAX_SKEW_SECONDS)).toEqual({ ok: true });
  });

  it("refuses a replay older than five minutes, and a timestamp from the future", () => {
    expect(verifySlackSignature(EXAMPLE.secret, request(), at + 360)).toMatchObject({ ok: false, reason: expect.stringMatching(/360 s .* replayed/) });
    expect(verifySlackSignature(EXAMPLE.secret, request(), at - 301)).toMatchObject({ ok: false });
  });

  it("refuses another secret, a changed body, a changed timestamp and a truncated signature", () => {
    const mismatch = { ok: false, reason: "signature does not match" };
    expect(verifySlackSignature("another-secret", request(), at)).toEqual(mismatch);
    expect(verifySlackSignature(EXAMPLE.secret, request({ body: EXAMPLE.body.replace("text=", "text=enforce+--apply") }), at)).toEqual(mismatch);
    expect(verifySlackSignature(EXAMPLE.secret, request({ timestamp: String(at + 1) }), at)).toEqual(mismatch);
    expect(verifySlackSignature(EXAMPLE.secret, request({ signature: EXAMPLE.signature.slice(0, -2) }), at)).toEqual(mismatch);
    expect(verifySlackSignature(EXAMPLE.secret, request({ signature: EXAMPLE.signature.toUpperCase() }), at)).toEqual(mismatch);
  });

  it("refuses an unsigned request and a malformed timestamp", () => {
    expect(verifySlackSignature(EXAMPLE.secret, request({ signature: undefined }), at)).toMatchObject({ ok: false, reason: expect.stringMatching(/unsigned/) });
    expect(verifySlackSignature(EXAMPLE.secret, request({ timestamp: undefined }), at)).toMatchObject({ ok: false, reason: expect.stringMatching(/unsigned/) });
    expect(verifySlackSignature(EXAMPLE.secret, request({ timestamp: "1531420618.5" }), at)).toMatchObject({ ok: false, reason: expect.stringMatching(/malformed/) });
  });

  it("verifies the bytes as sent: the same form re-encoded does not verify", () => {
    const reencoded = new URLSearchParams(EXAMPLE.body).toString().replaceAll("%2F", "/");
    expect(reencoded).not.toBe(EXAMPLE.body);
    expect(verifySlackSignature(EXAMPLE.secret, request({ body: reencoded }), at)).toMatchObject({ ok: false });
  });
});
