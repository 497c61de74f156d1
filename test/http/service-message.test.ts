/**
 * What an HttpError quotes of a JSON body that has no `message` or `error`: the body quoted as sent kept
 * the server's own escapes, so a credential it echoed escaped (`\u006e8n…`; lib/redact knows the escapes
 * of punctuation, not of letters and digits) passed redaction. The body is written again from its parse
 * now, its escapes undone before redaction; it is still redacted before it is cut, and a body nested too
 * deep for JSON.stringify is named rather than thrown on (a message so nested threw a RangeError).
 */
import { expect, it } from "vitest";
import { serviceMessage, SERVICE_MESSAGE_MAX } from "../../lib/http/errors.ts";
import { registerSecret } from "../../lib/redact/index.ts";

const SECRET = "n8n-key-service-message-0123456789";
registerSecret(SECRET);
/** Every character of `text` as JSON's \uXXXX escape: valid JSON, as encoders that escape everything write it. */
const escapedAll = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

it("a JSON body without a message is quoted written again from its parse, its escapes undone and the credential masked", () => {
  expect(serviceMessage(`{ "detail" : "key ${escapedAll(SECRET)} refused", "code": 17 }`, "application/json")).toBe('{"detail":"key [REDACTED] refused","code":17}');
  expect(serviceMessage(`["key ${escapedAll(SECRET)}"]`, "application/json")).toBe('["key [REDACTED]"]');
  // A message field is quoted as before.
  expect(serviceMessage(`{"message":"key \\u006e8n-key-service-message-0123456789 refused"}`, "application/json")).toBe("key [REDACTED] refused");
});

it("is redacted whole, then cut: the cut falls where the credential was", () => {
  // The credential, decoded, would run from character 286 to 320: past the cut.
  const x = "x".repeat(SERVICE_MESSAGE_MAX - 26);
  expect(serviceMessage(`{"detail":"${x} ${escapedAll(SECRET)} end"}`, "application/json")).toBe(`{"detail":"${x} [REDACTED] end… (2 more characters)`);
});

it("a body or a message nested too deep to write again is named, not thrown on (a RangeError, for a message)", () => {
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  for (const body of [`{"detail":${deep}}`, `{"message":${deep}}`]) expect(serviceMessage(body, "application/json")).toBe("JSON nested too deep to quote");
});
