/** serverDelay (lib/http/retry-delay.ts): which header values name a wait, and how long. */
import { afterEach, describe, expect, it } from "vitest";
import { httpDate, serverDelay } from "../../lib/http/retry-delay.ts";

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

describe("an HTTP-date's time zone is GMT whatever the machine's (RFC 9110 §5.6.7)", () => {
  const zone = process.env["TZ"];
  afterEach(() => {
    if (zone === undefined) delete process.env["TZ"];
    else process.env["TZ"] = zone;
  });
  const now = Date.parse("1994-11-06T08:49:07Z");
  it.each(["America/New_York", "Asia/Tokyo"])("in %s, the asctime form (no zone written) is read as GMT, as the other two forms are", (tz) => {
    process.env["TZ"] = tz;
    // Read as local time, 30 s ahead became 5 hours and 30 s (refused as above the ceiling), or 9 hours past (retried at once).
    expect(serverDelay({ "retry-after": "Sun Nov  6 08:49:37 1994" }, now)).toEqual({ ms: 30_000, header: "Retry-After" });
    expect(httpDate("Sun, 06 Nov 1994 08:49:37 GMT")).toBe(Date.parse("1994-11-06T08:49:37Z"));
  });
});
