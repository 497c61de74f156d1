/**
 * What the Lambda runtime logs of an error a job Lambda fails with. jobLambda passes the error through
 * `redacted()` (lib/redact's redactError), then the Node.js runtime logs it itself, as "Invoke Error"
 * followed by `JSON.stringify(error, (k, v) => withEnumerableProperties(v))`
 * (aws-lambda-nodejs-runtime-interface-client, Errors.toFormatted): the name, message and stack, and
 * every enumerable own field of the error and of any error object inside it.
 */
import { describe, expect, it } from "vitest";
import { redacted } from "../../../functions/shared/lambda/handler.ts";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { n8nClient } from "../../support/n8n-world.ts";
import { json, serve } from "../../support/server.ts";

const KEY = "n8n-review-key-echo-0003";
const policy = parsePolicy("version: 1\nn8n:\n  workflows: { keepActive: [] }\n", "review.yaml");

/** The runtime's serialisation of a thrown error, as its log line carries it. */
function runtimeLogged(error: unknown): string {
  const withEnumerableProperties = (value: unknown): unknown => {
    if (!(value instanceof Error)) return value;
    const out: Record<string, unknown> = { errorType: value.name, errorMessage: value.message, code: (value as { code?: unknown }).code, ...value };
    if (typeof value.stack === "string") out["stack"] = value.stack.split("\n");
    return out;
  };
  return `\t${JSON.stringify(error, (_k, v: unknown) => withEnumerableProperties(v))}`;
}

describe("a job Lambda's error, as the runtime logs it", () => {
  it("carries no credential a server echoed in a response header (a gateway that reflects the request's headers)", async () => {
    const server = await serve((req, res) => json(res, 502, { message: `upstream refused the request with key ${String(req.headers["x-n8n-api-key"])}` }, { "x-reflected-request": `x-n8n-api-key: ${String(req.headers["x-n8n-api-key"])}` }));
    const failure = await redacted(reconcileWorkflows({ n8n: n8nClient(server, KEY), policy })).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(Error);
    // The message, which redactError covers, is clean: the echo in the body is masked.
    expect((failure as Error).message).toContain("[REDACTED]");
    expect((failure as Error).message.includes(KEY)).toBe(false);
    // Nor the runtime's line, which shows every enumerable field: HttpError.headers was kept raw.
    expect(runtimeLogged(failure).includes(KEY)).toBe(false);
  });
});
