import { describe, expect, it } from "vitest";
import { issuedAwsCredentials } from "../../lib/config/aws-credentials.ts";

const KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8sK2mVb3";
const TOKEN = `IQoJb3JpZ2luX2VjEHoaCWV1LXdlc3QtMSJHMEUCIQD7${"sEssIonToKen0xKq9vLmN8pR2wZ+/".repeat(12)}`;

describe("the AWS credentials registered with redaction", () => {
  it("a secret key and a session token as AWS issues them", () => {
    expect(issuedAwsCredentials({ AWS_SECRET_ACCESS_KEY: KEY, AWS_SESSION_TOKEN: TOKEN })).toEqual([KEY, TOKEN]);
  });

  it("not a stand-in's (LocalStack's test, MinIO's minioadmin) or a value a person chose: masked, every name equal to it would be", () => {
    for (const env of [{ AWS_SECRET_ACCESS_KEY: "test", AWS_SESSION_TOKEN: "test" }, { AWS_SECRET_ACCESS_KEY: "minioadmin" }, { AWS_SECRET_ACCESS_KEY: "a passphrase of forty characters, spaced" }, {}]) {
      expect(issuedAwsCredentials(env), JSON.stringify(env)).toEqual([]);
    }
  });
});
