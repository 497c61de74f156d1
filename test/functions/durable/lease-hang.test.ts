/**
 * The durable Enforce's "lease" step sent its DynamoDB calls with no time limit and
 * no signal (functions/shared/durable/job.ts, functions/shared/state/claims.ts): a claims table that
 * takes the connection and never answers (a network path gone quiet, a VPC without its endpoint) holds
 * the step, silently, until Lambda ends the invocation, and so in every invocation after it. Giving the
 * lease back has a 10 s bound; taking it has none, nor the invocation's deadline.
 */
import { createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { standardPolicy } from "../../support/policies.ts";

durableWorld({
  skipTime: true,
  policy: standardPolicy(),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 20, seed: 5 }).dataset }),
  env: () => ({ WARDEN_REPORT_ONLY: "false" }),
});

const sockets: Socket[] = [];
const silent = createServer((socket) => void sockets.push(socket));
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

/** What each invocation has: its deadline comes at the floor, a second in. */
const REMAINING_MS = 12_000;

describe("a claims table that never answers", () => {
  it("the lease step gives up within the invocation's time (its deadline, or a bound of its own), rather than waiting for Lambda to end the invocation", async () => {
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    vi.stubEnv("AWS_ENDPOINT_URL_DYNAMODB", `http://127.0.0.1:${port}`);
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner, took } = timedRunner<EnforceReport>(handler, REMAINING_MS);
    const ended = runner.run({ payload: { source: "schedule" } }).then(() => "ended" as const);
    // The first invocation ended, or twice what an invocation has passed (it should have ended by then).
    let poll: NodeJS.Timeout | undefined;
    const firstEnded = new Promise<"ended">((resolve) => (poll = setInterval(() => took.length > 0 && resolve("ended"), 100)));
    const outcome = await Promise.race([ended, firstEnded, new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 2 * REMAINING_MS))]).finally(() => clearInterval(poll));
    expect(sockets.length, "the step reached the table").toBeGreaterThan(0);
    expect(took.length > 0 || outcome === "ended", `after ${2 * REMAINING_MS} ms the first invocation (told it had ${REMAINING_MS} ms) is still waiting on DynamoDB`).toBe(true);
  }, 60_000);
});
