import type { Policy } from "./policy.ts";

export type ChatAuthz = { allowed: true; canApply: boolean } | { allowed: false; reason: string };

/** Who may run Slack commands, where, and who may add --apply. Without a chatops section nobody may. */
export function authorizeSlack(policy: Policy, who: { userId: string; channelId: string }): ChatAuthz {
  const slack = policy.chatops?.slack;
  if (slack === undefined) return { allowed: false, reason: "chat-ops is not enabled (the policy has no chatops section)" };
  if (!slack.users.includes(who.userId)) return { allowed: false, reason: `user ${who.userId} may not run commands` };
  if (slack.channels !== undefined && !slack.channels.includes(who.channelId)) {
    return { allowed: false, reason: `commands are not accepted in channel ${who.channelId}` };
  }
  return { allowed: true, canApply: slack.applyUsers === undefined || slack.applyUsers.includes(who.userId) };
}
