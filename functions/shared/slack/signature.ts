/**
 * Slack's request signature: `v0=` and the hex HMAC-SHA256, keyed with the app's signing secret, of
 * `v0:{X-Slack-Request-Timestamp}:{raw body}`. The timestamp is signed too and must be recent, so a
 * captured request cannot be replayed once the window has passed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack's own recommendation: reject requests whose timestamp is more than five minutes away. */
export const MAX_SKEW_SECONDS = 300;

export interface SignedRequest {
  /** X-Slack-Request-Timestamp: Unix seconds. */
  timestamp: string | undefined;
  /** X-Slack-Signature. */
  signature: string | undefined;
  /** The body exactly as it arrived: a re-encoded form would not verify. */
  body: Buffer;
}

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

export function slackSignature(signingSecret: string, timestamp: string, body: Buffer | string): string {
  return `v0=${createHmac("sha256", signingSecret).update(`v0:${timestamp}:`).update(body).digest("hex")}`;
}

export function verifySlackSignature(signingSecret: string, req: SignedRequest, nowSeconds = Date.now() / 1000): SignatureVerdict {
  if (!req.signature || !req.timestamp) return { ok: false, reason: "unsigned: no X-Slack-Signature or X-Slack-Request-Timestamp header" };
  if (!/^\d{1,12}$/.test(req.timestamp)) return { ok: false, reason: "malformed X-Slack-Request-Timestamp" };
  const skew = Math.abs(nowSeconds - Number(req.timestamp));
  if (skew > MAX_SKEW_SECONDS) return { ok: false, reason: `timestamp is ${Math.round(skew)} s from now, more than ${MAX_SKEW_SECONDS} s: stale or replayed` };
  const expected = Buffer.from(slackSignature(signingSecret, req.timestamp, req.body));
  const given = Buffer.from(req.signature);
  // timingSafeEqual needs equal lengths; comparing lengths first reveals only the public format's length.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "signature does not match" };
  return { ok: true };
}
