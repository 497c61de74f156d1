/**
 * An error answer's body is quoted short, and was redacted whole before it was cut: a body may weigh up to
 * 64 MB, and redaction is synchronous, so no request deadline could fire meanwhile. One word of "eyJ" and
 * Slack's fullwidth hyphen, a near miss of the JWT shape, took lib/redact a time quadratic in its length (a
 * quarter of a megabyte: 25 s past a 1 s deadline). serviceMessage now redacts only 16 KiB past its cut
 * (redactThenCut), whatever the body.
 */
import { expect, it } from "vitest";
import type { HttpError } from "../../lib/http/errors.ts";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { serve } from "../support/server.ts";

/** 250,000 characters: one word of "eyJ" and Slack's fullwidth hyphen, no dot anywhere. */
const HOSTILE = "eyJ\uff0d".repeat(62_500);

it("a GitLab (or proxy) whose 404 body is that word does not hold the request past its 1 s deadline for long", { timeout: 600_000 }, async () => {
  const server = await serve((_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end(HOSTILE);
  });
  const gitlab = new GitLabClient({ url: server.url, token: "glpat-oracle13-review-token1", requestTimeoutMs: 1_000 });
  const start = performance.now();
  const err = await gitlab.getProject(1).catch((e: unknown) => e);
  const took = performance.now() - start;
  expect(err).toBeInstanceOf(Error);
  expect(took).toBeLessThan(10_000);
  // Quoted short, and saying that more follows.
  expect((err as HttpError).serviceMessage).toMatch(/^(?:eyJ－){75}… \(more than \d+ more characters\)$/);
});
