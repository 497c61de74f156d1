/**
 * Waits a person would notice, reported as they start: a retry's backoff or a server's Retry-After
 * (retry layer), the rate limiter holding a request back (rate-limit layer), an answer slow to come
 * (deadline layer). Each layer says what it waits for; this module decides what is worth a line and
 * gives every line the same clock. Messages are built from routes and redacted paths only.
 */
import type { HttpRequest, WaitEvent } from "./types.ts";

export interface WaitReporterOptions {
  /** "GitLab", "n8n": the name messages use. */
  service: string;
  onWait?: (e: WaitEvent) => void;
  /** Waits shorter than this are not reported (default 10 s). */
  thresholdMs?: number;
  now?: () => number;
}

export class WaitReporter {
  readonly service: string;
  readonly thresholdMs: number;
  private readonly onWait?: (e: WaitEvent) => void;
  private readonly now: () => number;

  constructor(opts: WaitReporterOptions) {
    this.service = opts.service;
    this.thresholdMs = opts.thresholdMs ?? 10_000;
    this.onWait = opts.onWait;
    this.now = opts.now ?? Date.now;
  }

  /** Whether anyone listens: a layer arms no timer for nobody. */
  get listening(): boolean {
    return this.onWait !== undefined;
  }

  /**
   * Reports a wait of `waitMs` if it is long enough; `message` is only built then. `waitedMs`, what the
   * request has waited before it (a retry's earlier waits): short waits in a row (a 429 storm answering
   * "retry after 5") are reported once together they pass the threshold, and again each time they double,
   * so a request held for minutes five seconds at a time is never silent, nor a line every five seconds.
   * So are the short waits of every request together: a listing whose every page is refused once for a
   * second or five (a proxy's token bucket) would otherwise hold a run for an hour without a line.
   */
  report(kind: WaitEvent["kind"], req: HttpRequest, waitMs: number, message: () => string, waitedMs = 0): void {
    if (!this.onWait) return;
    const alone = this.worthALine(waitMs, waitedMs);
    const together = this.addsUp(waitMs) && !alone;
    if (!alone && !together) return;
    // The total to the nearest second: a hold of a few milliseconds (a timer a little late) must not read as a second more.
    const text = together ? `${message()}; short waits like it have held requests ${Math.round(this.shortWaitsMs / 1000)} s in all so far` : message();
    this.onWait({ kind, method: req.method, route: req.route, attempt: req.attempt ?? 1, waitMs, message: text });
  }

  /** The short waits of every request so far, added up; a line at the threshold, then each time they double (unless the request's own said it). */
  private shortWaitsMs = 0;

  private addsUp(waitMs: number): boolean {
    if (waitMs >= this.thresholdMs) return false;
    const before = this.shortWaitsMs;
    this.shortWaitsMs += waitMs;
    return passedADoubling(this.thresholdMs, before, this.shortWaitsMs);
  }

  private worthALine(waitMs: number, waitedMs: number): boolean {
    return waitMs >= this.thresholdMs || passedADoubling(this.thresholdMs, waitedMs, waitedMs + waitMs);
  }

  /** "12:03:04 UTC": the wall-clock time `ms` from now. */
  at(ms: number): string {
    return `${new Date(this.now() + ms).toISOString().slice(11, 19)} UTC`;
  }
}

/** Whether a sum going from `before` to `after` reached `t`, or doubled past it (2t, 4t, …). */
function passedADoubling(t: number, before: number, after: number): boolean {
  if (after < t) return false;
  return before < t || Math.floor(Math.log2(after / t)) > Math.floor(Math.log2(before / t));
}

/** Whole seconds, rounded up, for messages ("60 s"). */
export function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
