/**
 * Anyone on the internet, without a Slack account: chat-ops' URL takes unsigned bodies up to a form's bound
 * (512 KiB), and slackSslCheck looked at each as a form before the signature check. A body of 262,144 empty
 * fields (`a&a&…`) took URLSearchParams seconds of CPU to parse (Node 24), a thousand times the cost of an
 * unsigned request's hash: with the function's reserved concurrency of 10, a few such requests a second
 * held every container, and each real slash command got Lambda's 429 (Slack: "failed"). Refused unsigned,
 * such a body must cost about what any other unsigned body of its size does.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { MAX_FORM_BYTES } from "../../../functions/shared/slack/form.ts";
import { coldChatops } from "../../support/chatops.ts";
import { functionUrlEvent } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { standardPolicy } from "../../support/policies.ts";

lambdaWorld({ dynamo: true, lambdaApi: true, policy: `${standardPolicy()}\nchatops:\n  slack:\n    users: ["U012ABCDEF"]\n` });

/** The median time of three unsigned requests carrying `body`, each refused 401. */
async function refusedIn(handler: (event: APIGatewayProxyEventV2) => Promise<{ statusCode?: number }>, body: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    expect((await handler(functionUrlEvent(body, {}))).statusCode).toBe(401);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[1]!;
}

describe("an unsigned body of many fields, within a form's bound", () => {
  it("is refused 401 about as fast as an unsigned body of one field and the same size", { timeout: 120_000 }, async () => {
    const handler = await coldChatops();
    const oneField = `x=${"a".repeat(MAX_FORM_BYTES - 2)}`;
    const manyFields = "a&".repeat(MAX_FORM_BYTES / 2);
    // The same, naming both fields an ssl_check is told by (so it is no ssl_check, and is refused unsigned).
    const tail = "ssl_check=1&command=x";
    const manyAndBoth = `${"a&".repeat((MAX_FORM_BYTES - tail.length) / 2 - 1)}${tail}`;
    await refusedIn(handler, oneField); // warm
    const plain = await refusedIn(handler, oneField);
    for (const body of [manyFields, manyAndBoth]) {
      expect(body.length).toBeLessThanOrEqual(MAX_FORM_BYTES);
      const hostile = await refusedIn(handler, body);
      expect(hostile, `one field: ${plain.toFixed(0)} ms, ${body.length} bytes of many fields: ${hostile.toFixed(0)} ms`).toBeLessThan(10 * plain + 200);
    }
  });
});
