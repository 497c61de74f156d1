/**
 * The counts kept in the claims table (functions/shared/state/counted-item.ts) are changed by `ADD`, which
 * is not idempotent. Sent through a DynamoDB client with the SDK's default retries (3 attempts), as they were
 * until the stream12 review, an UpdateItem that reached DynamoDB and was applied, but whose answer was lost
 * (a reset connection, an answer slower than the client's 3 s requestTimeout), was sent again by the SDK and
 * applied twice. They are sent once now.
 *
 * The removal budget (removal-budget.ts) is what holds the EventsWorker's and the Watch's removals under a
 * policy no full run has judged to gitlab.guard.maxRemovals together. A release (a removal GitLab refused, or
 * another run did first) given back twice lowers the count below what was removed, and later runs remove
 * past the limit.
 */
import { createServer, request as httpRequest } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { lambdaWorld } from "../../support/lambda-world.ts";
import { loopbackEndpoints } from "../../support/stalling-aws.ts";

const world = lambdaWorld({ dynamo: true });
const endpoints = loopbackEndpoints();
const POLICY = "d".repeat(64);

/**
 * A loopback hop in front of dynalite (a proxy, a NAT, a network path that resets): forwards every request,
 * and for the first whose body matches `lose`, lets DynamoDB apply it and then drops the connection instead
 * of passing the answer back. Counts the requests that matched.
 */
async function lossyHop(lose: (body: string) => boolean): Promise<{ url: string; matched: () => number }> {
  let matched = 0;
  let lost = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const hit = lose(body.toString("utf8"));
      if (hit) matched++;
      const upstream = new URL(world.dynamo.url);
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        const got: Buffer[] = [];
        answer.on("data", (c: Buffer) => got.push(c));
        answer.on("end", () => {
          if (hit && !lost) {
            lost = true;
            // Applied by DynamoDB; its answer never reaches the caller.
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          res.end(Buffer.concat(got));
        });
      });
      out.end(body);
    });
  });
  return { url: await endpoints.listen(server), matched: () => matched };
}

async function removalsCounted(): Promise<number> {
  const { GetItemCommand } = await import("@aws-sdk/client-dynamodb");
  const client = world.dynamo.client();
  const { Item } = await client.send(new GetItemCommand({ TableName: world.table, Key: { id: { S: `budget:stream:${POLICY}` } }, ConsistentRead: true }));
  client.destroy();
  return Number(Item?.["removals"]?.N);
}

describe("the stream's removal budget when DynamoDB's answer to a give-back is lost", () => {
  it("gives back once: a release applied whose answer was lost is not applied again, so the runs together stay within maxRemovals", async () => {
    const hop = await lossyHop((body) => body.includes('":back"'));
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", hop.url);
    vi.resetModules();
    const { dynamoRemovalBudget } = await import("../../../functions/shared/state/removal-budget.ts");
    const budget = dynamoRemovalBudget();
    // maxRemovals 5. A run plans 4 removals and takes them; GitLab refuses 2 of them: those 2 are given back.
    expect(await budget.reserve(POLICY, 4, 5)).toBe(true);
    await budget.release(POLICY, 2).catch(() => undefined);
    expect(hop.matched(), "the give-back reached the table").toBeGreaterThanOrEqual(1);
    // 2 shares were removed: the count must say 2, and a later run planning 4 more must not pass the limit of 5.
    const counted = await removalsCounted();
    const later = await budget.reserve(POLICY, 4, 5);
    expect({ counted, laterRunTakes4: later }, "the SDK sent the lost `ADD removals :back` again: given back twice, the count is below what was removed, and a later run takes 4 more (6 removed under a limit of 5)").toEqual({ counted: 2, laterRunTakes4: false });
  }, 20_000);
});
