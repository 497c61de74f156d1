import { afterEach, describe, expect, it, vi } from "vitest";
import { isReportOnly, reportOnlySetting } from "../../../functions/shared/config/settings.ts";

afterEach(() => vi.unstubAllEnvs());

describe("WARDEN_REPORT_ONLY at run time", () => {
  it('allows applying only when it is exactly "false"', () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "false");
    expect(isReportOnly()).toBe(false);
  });

  // sst.config.ts sets only "true" or "false": anything else is a deployment edited or gone wrong, and fails closed.
  it.each([["true"], [undefined], [""], ["TRUE"], ["1"], ["yes"], ["False"], ["FALSE"], [" false"], ["false "], ["0"], ["no"]])("is report-only when it is %j", (value) => {
    vi.stubEnv("WARDEN_REPORT_ONLY", value);
    expect(isReportOnly()).toBe(true);
  });

  it("names the setting in a refusal, unset included", () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", undefined);
    expect(reportOnlySetting()).toBe("WARDEN_REPORT_ONLY unset");
    vi.stubEnv("WARDEN_REPORT_ONLY", "TRUE");
    expect(reportOnlySetting()).toBe("WARDEN_REPORT_ONLY=TRUE");
  });
});
