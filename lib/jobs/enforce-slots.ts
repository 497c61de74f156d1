/** The examination's requests, each in a slot of its one pool, and none sent once it pauses. */
import type { Examination } from "./enforce-kinds.ts";

/** What a request stopped by a pause gives instead of an answer. */
export const PAUSED = Symbol("paused");

/**
 * Sends `send` when a slot is free, unless the examination has paused meanwhile: a pause must stop
 * the requests still waiting for a slot too, or a large queue of them would outlast the step.
 */
export function inSlot<T>(x: Examination, send: () => Promise<T>): Promise<T | typeof PAUSED> {
  return x.slots(async () => (x.pause?.aborted ? PAUSED : send()));
}
