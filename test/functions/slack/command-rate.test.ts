/**
 * One person's flood of slash commands (an allowed account, or whoever holds it): every command signed
 * by Slack and allowed by the policy started a run, and the Worker runs a few at a time, so hundreds
 * queued in front of everyone else's for hours. Chat-ops now starts at most COMMANDS_PER_MINUTE a
 * minute for one user, counted in the real claims table (dynalite); the rest are refused and start
 * nothing, and nobody else's commands are held up. One person of an Enterprise Grid org has the same
 * user id in each of its workspaces (each command's team_id being the workspace it was typed in): counted
 * per workspace, one in ten of them started fifty runs a minute; they are counted within the org.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import { COMMANDS_PER_MINUTE } from "../../../functions/shared/slack/command-rate.ts";
import { standardPolicy } from "../../support/policies.ts";
import { lambdaContext, signedCommand } from "../../support/lambda.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

const [FLOODER, OTHER] = ["U012ABCDEF", "U0OTHER001"];
const POLICY = `${standardPolicy()}
chatops:
  slack:
    users: ["${FLOODER}", "${OTHER}"]
    channels: ["C0123456"]
`;
const world = lambdaWorld({ dynamo: true, lambdaApi: true, policy: POLICY, env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_REPORT_ONLY: "false" }) });

async function send(event: APIGatewayProxyEventV2): Promise<string> {
  vi.resetModules();
  const { handler } = await import("../../../functions/chatops.ts");
  const response = (await handler(event, lambdaContext({ functionName: "warden-test-Chatops" }))) as APIGatewayProxyStructuredResultV2;
  expect(response.statusCode).toBe(200);
  return (JSON.parse(String(response.body)) as { text: string }).text;
}

/** The start of the minute before this one: every command of a test is signed in one minute, whatever second the test starts at. */
const lastMinute = () => Math.floor(Date.now() / 60_000) * 60 - 60;
/** A command signed by Slack at `second` (Unix seconds), and taken at once: the clock is set there (a command taken later is not started at all). */
const signedAt = (second: number, user = FLOODER, grid: { team_id?: string; enterprise_id?: string } = {}) => {
  vi.setSystemTime(second * 1000 + 200);
  return signedCommand({ text: "enforce", user_id: user, ...grid });
};

const RUNNING = ":hourglass_flowing_sand: Running `enforce` (dry run); the result will be posted here.";

describe("one person's flood of slash commands", () => {
  it(`starts ${COMMANDS_PER_MINUTE} a minute for them, refuses the rest, and holds up nobody else's`, async () => {
    const minute = lastMinute();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (let n = 0; n < COMMANDS_PER_MINUTE; n++) expect(await send(signedAt(minute + n))).toBe(RUNNING);
      expect(await send(signedAt(minute + 10))).toBe(
        `:no_entry: Warden starts at most ${COMMANDS_PER_MINUTE} commands a minute for each person, and you have sent that many this minute: it did not run \`enforce\`. Try again in 50 s.`,
      );
      expect(world.lambdaApi.invokes).toHaveLength(COMMANDS_PER_MINUTE);
      // Another person in the same minute, and the same person in the next.
      expect(await send(signedAt(minute + 11, OTHER))).toBe(RUNNING);
      expect(await send(signedAt(minute + 60))).toBe(RUNNING);
      expect(world.lambdaApi.invokes).toHaveLength(COMMANDS_PER_MINUTE + 2);
    } finally {
      vi.useRealTimers();
    }
  });

  it(`starts ${COMMANDS_PER_MINUTE} a minute for one person of an Enterprise Grid org in all, not in each of its workspaces`, async () => {
    const minute = lastMinute();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const answers = [];
      for (let n = 0; n < 2 * COMMANDS_PER_MINUTE; n++) answers.push(await send(signedAt(minute + n, FLOODER, { team_id: `T000${n % 2}`, enterprise_id: "E0001" })));
      expect(answers.filter((a) => a === RUNNING)).toHaveLength(COMMANDS_PER_MINUTE);
      expect(world.lambdaApi.invokes).toHaveLength(COMMANDS_PER_MINUTE);
    } finally {
      vi.useRealTimers();
    }
  });

  it("starts nothing when the commands cannot be counted, and says so", async () => {
    // DynamoDB refuses a key over 2,048 bytes: Slack's team id is no longer, but the write failing for any reason is what counts here.
    const event = signedCommand({ text: "enforce --apply", team_id: `T${"0".repeat(2_100)}` });
    expect(await send(event)).toBe(":x: Warden could not count this minute's commands, so it did not run `enforce --apply`. Try again in a minute.");
    expect(world.lambdaApi.invokes).toHaveLength(0);
  });
});
