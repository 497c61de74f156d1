/**
 * The claims-table counts are sent without the SDK's attempts (counted-item.ts, dynamoClient({ maxAttempts:
 * 1 })), so that an ADD DynamoDB applied whose answer was lost is not applied twice. But the SDK's attempts
 * also covered the answers that say DynamoDB applied nothing: a ThrottlingException /
 * ProvisionedThroughputExceededException (400, the request refused before any write). One such answer failed
 * the take of the removal budget, and with it the EventsWorker run or Watch poll (the today10 review);
 * counted-item.ts sends those again itself, which counts nothing twice.
 */
import { createServer, request as httpRequest } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { loopbackEndpoints } from "../../support/stalling-aws.ts";

const world = lambdaWorld({ dynamo: true });
const endpoints = loopbackEndpoints();
const POLICY = "e".repeat(64);

/** A hop before dynalite answering the first UpdateItem as a throttled DynamoDB does (nothing applied), forwarding the rest. */
async function throttlingHop(): Promise<{ url: string; throttled: () => number }> {
  let throttled = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (String(req.headers["x-amz-target"]).endsWith("UpdateItem") && throttled === 0) {
        throttled++;
        res.writeHead(400, { "content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "THROTTLED" });
        res.end(JSON.stringify({ __type: "com.amazonaws.dynamodb.v20120810#ThrottlingException", message: "Rate of requests exceeds the allowed throughput." }));
        return;
      }
      const upstream = new URL(world.dynamo.url);
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      out.end(body);
    });
  });
  return { url: await endpoints.listen(server), throttled: () => throttled };
}

describe("the removal budget when DynamoDB throttles once", () => {
  it("a take DynamoDB refused as throttled (nothing applied) is sent again, not a failed run", async () => {
    const hop = await throttlingHop();
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", hop.url);
    vi.resetModules();
    const { dynamoRemovalBudget } = await import("../../../functions/shared/state/removal-budget.ts");
    const budget = dynamoRemovalBudget();
    const taken = await budget.reserve(POLICY, 2, 5).then(
      (ok) => ok,
      (err: unknown) => `threw ${(err as Error).name}`,
    );
    expect(hop.throttled()).toBe(1);
    expect(taken, "one throttled answer (DynamoDB applied nothing) failed the take, and so the run that would remove").toBe(true);
  }, 20_000);
});
