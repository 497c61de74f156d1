/**
 * The examination's one pool of request slots, and the order in which waiting requests get them.
 *
 * Every examination request takes a slot: project pages, group pages, group details. Whichever kind
 * still has work keeps every slot busy. When more requests wait than slots are free, the ones on the
 * longest chain go first: the pages of one listing come one after another (each follows the last
 * one's link), so a listing with many pages ahead sets the examination's end, while a group detail can
 * be read at any moment and fills whatever slots the chains leave. A waiting request is served by its
 * priority, highest first (p-queue): a listing's opening page and the subgroup look-ups that decide
 * its splits above everything, then each chain's next request by the requests it still has ahead (a
 * listing's pages; a group's audit events that attribute the strays found, window after window, then
 * the author named: attribution-early.ts), then the group listings that feed detail reads, and last
 * the detail reads.
 */
import PQueue from "p-queue";

export const PRIORITY = {
  /** A listing's first page, and what decides whether it splits: nothing else can start below it. */
  opening: Number.MAX_SAFE_INTEGER,
  /** The group listings that feed detail reads. */
  groupPages: 1,
  /** One group's detail: independent of everything else, read whenever a slot is spare. */
  detail: 0,
} as const;

/** The next request of a chain (a listing's pages, a group's audit events) with about `pagesAhead` requests still to send on it. */
export function chainPriority(pagesAhead: number): number {
  return PRIORITY.groupPages + 1 + Math.max(0, Math.ceil(pagesAhead));
}

export type Slots = <T>(send: () => Promise<T>, priority: number) => Promise<T>;

export function slotPool(concurrency: number): Slots {
  const queue = new PQueue({ concurrency });
  return (send, priority) => queue.add(send, { priority });
}

/** What a request stopped by a pause gives instead of an answer. */
export const PAUSED = Symbol("paused");

/**
 * Sends `send` when a slot is free, unless the examination has paused meanwhile: a pause must stop
 * the requests still waiting for a slot too, or a large queue of them would outlast the step.
 */
export function inSlot<T>({ slots, pause }: { slots: Slots; pause?: AbortSignal | undefined }, send: () => Promise<T>, priority: number): Promise<T | typeof PAUSED> {
  return slots(async () => (pause?.aborted ? PAUSED : send()), priority);
}
