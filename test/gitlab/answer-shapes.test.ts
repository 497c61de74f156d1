/**
 * Answers that are not what was asked for (lib/gitlab/answer-shapes.ts): a server or proxy answering
 * JSON of another shape (`[0]`) to the token check and the scope's look-up. Read with their fields
 * undefined, the namespace passed for a user's and the run blamed the policy ("acme is a user namespace,
 * not a group"), sending the operator to the wrong fix; now each names the request and what it lacked.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { standardPolicy } from "../support/policies.ts";
import { json, serve } from "../support/server.ts";

async function answering(body: unknown) {
  const s = await serve((_req, res) => json(res, 200, body));
  return new GitLabClient({ url: s.url, token: "glpat-answer-shapes-0123456789", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
}

describe("answers of another shape", () => {
  it("the token check and a namespace's look-up name the request and what was expected", async () => {
    const gitlab = await answering([0]);
    await expect(gitlab.currentUser()).rejects.toThrow("GET /user answered with JSON that is not a user (id and username expected)");
    await expect(gitlab.getNamespace("acme")).rejects.toThrow("GET /namespaces/acme answered with JSON that is not a namespace (id, kind and full_path expected)");
    await expect(gitlab.findNamespace("acme/team")).rejects.toThrow("GET /namespaces/acme/team answered with JSON that is not a namespace (id, kind and full_path expected)");
  });

  it("a scope group's look-up answered so is not blamed on the policy", async () => {
    const gitlab = await answering({ id: 1, username: "warden", kind: [0] });
    const failure = enforce({ gitlab, policy: parsePolicy(standardPolicy(), "test.yaml") });
    await expect(failure).rejects.toThrow("GET /namespaces/acme answered with JSON that is not a namespace (id, kind and full_path expected)");
  });

  it("an id past 2^53, which JSON.parse rounds to another's, is not an id GitLab writes: the answer is refused", async () => {
    const gitlab = await answering({ id: 2 ** 53 + 2, username: "warden", kind: "group", full_path: "acme", shared_with_groups: [] });
    await expect(gitlab.currentUser()).rejects.toThrow("GET /user answered with JSON that is not a user (id and username expected)");
    await expect(gitlab.getNamespace("acme")).rejects.toThrow(/is not a namespace/);
  });
});
