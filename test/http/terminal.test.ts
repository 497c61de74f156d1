/** The terminal-error marker: each error says where it is made whether another attempt would meet it again. */
import { expect, it } from "vitest";
import { HttpError, isTerminal } from "../../lib/http/index.ts";
import { ScopeError } from "../../lib/jobs/index.ts";
import { ConfigError } from "../../functions/shared/config/settings.ts";
import { DeadlineError } from "../../functions/shared/lambda/deadline.ts";

const answered = (status: number) => new HttpError({ status, method: "DELETE", route: "DELETE /projects/:id/share/:group_id", path: "/projects/1/share/2", serviceMessage: "", headers: {} });

it("a refusal is terminal; a timeout, a rate limit and a server error are not", () => {
  expect([400, 401, 403, 404, 409, 422].map((s) => isTerminal(answered(s)))).toEqual([true, true, true, true, true, true]);
  expect([408, 429, 500, 502, 503].map((s) => isTerminal(answered(s)))).toEqual([false, false, false, false, false]);
});

it("a scope or a setting that is wrong is terminal; a deadline, a plain error or a non-error is not, whatever it wraps", () => {
  expect(isTerminal(new ScopeError("no such group"))).toBe(true);
  expect(isTerminal(new ConfigError("GITLAB_URL is not set"))).toBe(true);
  expect(isTerminal(new DeadlineError("cut short", { cause: answered(403) }))).toBe(false);
  expect(isTerminal(new Error("boom"))).toBe(false);
  expect(isTerminal("403")).toBe(false);
  expect(isTerminal(undefined)).toBe(false);
});
