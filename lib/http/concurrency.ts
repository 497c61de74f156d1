/**
 * The requests in flight to one origin adapt to the server, as TCP's window does (additive increase,
 * multiplicative decrease): unbounded until the server pushes back, so a healthy server is never slowed
 * (the jobs' own pools bound it then); each pushback (a 429, or a 503 with Retry-After) halves what is in
 * flight, down to 1; each run of as many successes as the limit allows grows it by one. A pushback to a
 * request sent before the last decrease says nothing new (the halving already answered it), so the
 * requests in flight when a limit is hit cost one halving, not one each.
 */

/** What an answer says about the server's room: it pushed back, it coped (any answer below 500), or neither (a 5xx, or no answer). */
export type Outcome = "pushback" | "ok" | "none";

export class AdaptiveConcurrency {
  private current = Infinity;
  private lowestLimit = Infinity;
  private inFlight = 0;
  /** Bumped by each decrease: a request's epoch is the one it was sent in. */
  private epoch = 0;
  private successes = 0;
  private streak = 0;
  private readonly waiting: (() => void)[] = [];

  /** Requests allowed in flight now (Infinity until the first pushback). */
  get limit(): number {
    return this.current;
  }

  /** The lowest the limit has been (Infinity if it never was limited). */
  get lowest(): number {
    return this.lowestLimit;
  }

  get active(): number {
    return this.inFlight;
  }

  /** Pushbacks in a row, each to a request sent after the one before: how far a wait without a header should grow. */
  get pushbacks(): number {
    return this.streak;
  }

  /** Waits for a place; `onWaiting` is called if the wait has to begin (the place is taken either way once it resolves). */
  async acquire(signal?: AbortSignal, onWaiting?: () => () => void): Promise<void> {
    signal?.throwIfAborted();
    if (this.inFlight < this.current && this.waiting.length === 0) {
      this.inFlight++;
      return;
    }
    const stopNotice = onWaiting?.();
    try {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener("abort", abort);
          this.inFlight++;
          resolve();
        };
        const abort = () => {
          const at = this.waiting.indexOf(wake);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        this.waiting.push(wake);
        signal?.addEventListener("abort", abort, { once: true });
      });
    } finally {
      stopNotice?.();
    }
  }

  /** The epoch a request going out now is sent in. */
  sent(): number {
    return this.epoch;
  }

  /** A request sent in `epoch` is done; frees its place. */
  release(epoch: number, outcome: Outcome): void {
    const flight = this.inFlight;
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (outcome === "pushback" && epoch === this.epoch) {
      this.current = Math.max(1, Math.floor(Math.min(this.current, flight) / 2));
      this.lowestLimit = Math.min(this.lowestLimit, this.current);
      this.epoch++;
      this.successes = 0;
      this.streak++;
    } else if (outcome === "ok" && epoch === this.epoch) {
      this.streak = 0;
      if (this.current !== Infinity && ++this.successes >= this.current) {
        this.current++;
        this.successes = 0;
      }
    }
    this.wakeWaiting();
  }

  private wakeWaiting(): void {
    while (this.waiting.length && this.inFlight < this.current) this.waiting.shift()!();
  }
}
