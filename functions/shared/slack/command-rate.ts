/**
 * At most COMMANDS_PER_MINUTE commands a minute start a run for one Slack user (of one workspace, or of
 * one Enterprise Grid org: its users have the same id in each of its workspaces, and counted per workspace
 * one person in ten of them would start ten times as many; chat-ops passes the org's id as `team`). The
 * Worker's reserved concurrency runs a few at a time and Lambda queues the rest for up to 6 hours: one
 * account (or whoever holds it) sending hundreds would have every other person's command wait behind
 * them, past the 30 minutes Slack takes posts to a response_url for, and spend the token's GitLab
 * budget the sweep needs. Each command takes one of the minute's slots, claimed one after another in
 * the claims table (claims.ts: one conditional write each, under chat-ops' own `slack:` keys); a
 * command that finds them all taken is refused and starts nothing.
 *
 * The minute is the one Slack signed the request in (`X-Slack-Request-Timestamp`, verified to be within
 * 5 minutes of now before this runs): Slack's clock, which the sender does not choose.
 */
import type { Claims } from "../state/claims.ts";

export const COMMANDS_PER_MINUTE = 5;

export type CommandSlot = { taken: true } | { taken: false; retryInSeconds: number };

/**
 * Takes one of the minute's slots for `user` of `team` at `timestamp` (Unix seconds); throws when the table
 * cannot be reached, or `signal` cuts a claim (which may have taken a slot nonetheless).
 */
export async function takeCommandSlot(claims: Claims, team: string, user: string, timestamp: number, signal?: AbortSignal): Promise<CommandSlot> {
  const minute = Math.floor(timestamp / 60);
  const end = (minute + 1) * 60;
  for (let slot = 0; slot < COMMANDS_PER_MINUTE; slot++) {
    // Kept a minute past the window's end, for the clocks of Slack, AWS and DynamoDB.
    if (await claims.claim(`slack:rate:${team}:${user}:${minute}:${slot}`, end + 60, undefined, signal)) return { taken: true };
  }
  return { taken: false, retryInSeconds: end - timestamp };
}
