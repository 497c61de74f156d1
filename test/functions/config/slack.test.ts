import { afterEach, describe, expect, it, vi } from "vitest";
import { allowedResponseOrigin, isAllowedResponseUrl } from "../../../functions/shared/config/slack.ts";

afterEach(() => vi.unstubAllEnvs());

describe("which response_url a result may be posted to", () => {
  it.each([[undefined], [""]])("is Slack's origin alone with WARDEN_SLACK_RESPONSE_ORIGIN %j", (value) => {
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", value);
    expect(allowedResponseOrigin()).toBe("https://hooks.slack.com");
    expect(isAllowedResponseUrl("https://hooks.slack.com/commands/T0001/1234/abcd")).toBe(true);
    for (const url of ["http://hooks.slack.com/commands/x", "https://hooks.slack.com.evil.example/commands/x", "https://evil.example/commands/x", "hooks.slack.com/commands/x", "http://127.0.0.1:8080/commands/x"]) {
      expect(isAllowedResponseUrl(url), url).toBe(false);
    }
  });

  it.each([
    ["http://127.0.0.1:43123", "http://127.0.0.1:43123"],
    ["http://[::1]:43123", "http://[::1]:43123"],
    ["http://localhost:43123", "http://localhost:43123"],
    ["http://LOCALHOST:43123/ignored/path", "http://localhost:43123"],
  ])("may be a loopback origin for tests: %s", (value, origin) => {
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", value);
    expect(allowedResponseOrigin()).toBe(origin);
    expect(isAllowedResponseUrl(`${origin}/commands/x`)).toBe(true);
    // It replaces Slack's origin rather than adding to it.
    expect(isAllowedResponseUrl("https://hooks.slack.com/commands/x")).toBe(false);
  });

  it.each([
    ["https://evil.example"],
    ["http://evil.example:8080"],
    ["https://hooks.slack.com"],
    // Loopback, but not plain http on a loopback name.
    ["https://127.0.0.1:8443"],
    ["http://127.0.0.1.nip.io:8080"],
    ["http://localhost.evil.example:8080"],
    ["http://10.0.0.1:8080"],
    ["http://169.254.169.254"],
    ["127.0.0.1:8080"],
    ["not a url"],
  ])("refuses anything else, %j, rather than widening the check", (value) => {
    vi.stubEnv("WARDEN_SLACK_RESPONSE_ORIGIN", value);
    const refusal = `WARDEN_SLACK_RESPONSE_ORIGIN is for tests only and must be a loopback origin (http://127.0.0.1:<port>, http://[::1]:<port> or http://localhost:<port>), not ${JSON.stringify(value)}`;
    expect(() => allowedResponseOrigin()).toThrow(refusal);
    // Nor is any URL allowed meanwhile, Slack's included: the deployment is misconfigured.
    expect(() => isAllowedResponseUrl(`${value}/commands/x`)).toThrow(refusal);
    expect(() => isAllowedResponseUrl("https://hooks.slack.com/commands/x")).toThrow(refusal);
  });
});
