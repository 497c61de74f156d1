import { setTimeout as delay } from "node:timers/promises";

/** A wait the caller can cancel; it rejects with the caller's own abort reason, as fetch does. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (err) {
    throw signal?.aborted ? signal.reason : err;
  }
}
