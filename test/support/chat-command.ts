/**
 * An applying `/warden enforce` as chat-ops hands it to the Worker (functions/shared/runs/job-request.ts):
 * asked by the policy's applier (policies.ts CHAT) at `sentAt` (epoch seconds), its response_url on the
 * Slack stand-in at `origin`, carrying the command's time as Slack issues it (`/commands/T0001/<sentAt>/…`).
 */
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { CHAT } from "./policies.ts";

export function applyingEnforce(origin: string, sentAt = Math.floor(Date.now() / 1000)): WorkerEvent {
  return {
    command: { job: "enforce", apply: true },
    responseUrl: `${origin}/commands/T0001/${sentAt}/${crypto.randomUUID()}`,
    user: { id: CHAT.applier, name: "ada" },
    channelId: CHAT.channel,
    correlationId: crypto.randomUUID(),
    sentAt,
  };
}
