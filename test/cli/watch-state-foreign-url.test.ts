/**
 * `warden watch --state FILE` refuses a state file kept for another GitLab, quoting the file's gitlabUrl
 * cut to 200 characters. It was cut before stderr's redaction: a URL whose `user:password@` ran past the
 * cut lost its `@`, and the password before the cut was no longer shaped like one, so it was printed (a
 * review of redaction's outputs). It is redacted whole first, then cut.
 */
import { expect, it } from "vitest";
import { policyFile, warden } from "../support/cli.ts";

it("a foreign state file's gitlabUrl is quoted with its password masked, though the cut falls inside it", { timeout: 60_000 }, async () => {
  // The password begins at character 190 of the quoted URL and runs past the 200 it is cut to.
  const password = "s3cretStatePassw0rd42";
  const gitlabUrl = `https://${"u".repeat(180)}:${password}@gitlab.example.com`;
  const state = policyFile(JSON.stringify({ version: 1, sources: { instance: 3 }, gitlabUrl }), "state.json");
  const run = await warden(["watch", "--state", state], { GITLAB_URL: "http://127.0.0.1:9", GITLAB_TOKEN: "glpat-WatchStateForeignUrl0123", WARDEN_POLICY: policyFile("version: 1\n") });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`the cursor of "https://${"u".repeat(180)}:[REDACTED]`);
  expect(run.stderr).not.toContain(password.slice(0, 6));
});
