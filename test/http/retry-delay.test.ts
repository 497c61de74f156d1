/** serverDelay (lib/http/retry-delay.ts): which header values name a wait, and how long. */
import { describe, expect, it } from "vitest";
import { serverDelay } from "../../lib/http/retry-delay.ts";

describe("Retry-After as an HTTP-date", () => {
  const now = Date.parse("1994-11-06T08:49:07Z");
  it.each([
    ["IMF-fixdate", "Sun, 06 Nov 1994 08:49:37 GMT"],
    ["RFC 850", "Sunday, 06-Nov-94 08:49:37 GMT"],
    ["asctime", "Sun Nov  6 08:49:37 1994"],
  ])("reads the %s form (%s)", (_, date) => {
    expect(serverDelay({ "retry-after": date }, now)).toEqual({ ms: 30_000, header: "Retry-After" });
  });

  it.each(["-1", "1.5", "tomorrow", "2026-11-29", "Sun, 06 Nov 1994"])("names no wait for %j", (value) => {
    expect(serverDelay({ "retry-after": value }, now)).toBeUndefined();
  });
});
