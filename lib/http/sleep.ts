import { setTimeout as delay } from "node:timers/promises";

/** Node's timers hold at most this; a longer one fires after 1 ms, with a warning. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * A wait the caller can cancel; it rejects with the caller's own abort reason, as fetch does. Every
 * caller bounds its waits far below Node's longest timer; past it the wait is cut to that, not to 1 ms.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(Math.min(ms, LONGEST_TIMER_MS), undefined, { signal });
  } catch (err) {
    throw signal?.aborted ? signal.reason : err;
  }
}
