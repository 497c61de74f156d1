import { describe, expect, it } from "vitest";
import { authorizeSlack, parsePolicy } from "../../lib/policy/index.ts";
import type { ChatAuthz } from "../../lib/policy/index.ts";

const ALICE = "U012ABCDEF"; // may apply
const BOB = "U034GHIJKL"; // may run commands, not apply
const EVE = "U099ZZZZZZ"; // not listed
const OPS = "C0123456";
const RANDOM = "C0999999";

const restricted = parsePolicy(
  `version: 1\nchatops:\n  slack:\n    users: [${ALICE}, ${BOB}]\n    channels: [${OPS}]\n    applyUsers: [${ALICE}]\n`,
  "chatops.yaml",
);
const open = parsePolicy(`version: 1\nchatops:\n  slack:\n    users: [${ALICE}, ${BOB}]\n`, "chatops.yaml");
const none = parsePolicy("version: 1\n", "none.yaml");

describe("authorizeSlack", () => {
  it.each<[string, typeof restricted, string, string, ChatAuthz]>([
    ["an apply user in an allowed channel", restricted, ALICE, OPS, { allowed: true, canApply: true }],
    ["a plain user in an allowed channel", restricted, BOB, OPS, { allowed: true, canApply: false }],
    ["a user in another channel", restricted, ALICE, RANDOM,
      { allowed: false, reason: `commands are not accepted in channel ${RANDOM}` }],
    ["an unlisted user", restricted, EVE, OPS, { allowed: false, reason: `user ${EVE} may not run commands` }],
    ["a user id in the wrong case", restricted, ALICE.toLowerCase(), OPS,
      { allowed: false, reason: `user ${ALICE.toLowerCase()} may not run commands` }],
    ["any channel when channels are not set", open, BOB, RANDOM, { allowed: true, canApply: true }],
    ["everyone may apply when applyUsers is not set", open, ALICE, OPS, { allowed: true, canApply: true }],
    ["an unlisted user when channels are not set", open, EVE, OPS, { allowed: false, reason: `user ${EVE} may not run commands` }],
    ["anyone without a chatops section", none, ALICE, OPS,
      { allowed: false, reason: "chat-ops is not enabled (the policy has no chatops section)" }],
  ])("%s", (_, policy, userId, channelId, authz) => {
    expect(authorizeSlack(policy, { userId, channelId })).toEqual(authz);
  });

  it("lets nobody apply when applyUsers is empty", () => {
    const noApply = parsePolicy(`version: 1\nchatops:\n  slack:\n    users: [${ALICE}]\n    applyUsers: []\n`, "x.yaml");
    expect(authorizeSlack(noApply, { userId: ALICE, channelId: OPS })).toEqual({ allowed: true, canApply: false });
  });
});
