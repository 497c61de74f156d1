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
   */
  report(kind: WaitEvent["kind"], req: HttpRequest, waitMs: number, message: () => string, waitedMs = 0): void {
    if (!this.onWait || !this.worthALine(waitMs, waitedMs)) return;
    this.onWait({ kind, method: req.method, route: req.route, attempt: req.attempt ?? 1, waitMs, message: message() });
  }

  private worthALine(waitMs: number, waitedMs: number): boolean {
    const t = this.thresholdMs;
    if (waitMs >= t) return true;
    const total = waitedMs + waitMs;
    if (total < t) return false;
    return waitedMs < t || Math.floor(Math.log2(total / t)) > Math.floor(Math.log2(waitedMs / t));
  }

  /** "12:03:04 UTC": the wall-clock time `ms` from now. */
  at(ms: number): string {
    return `${new Date(this.now() + ms).toISOString().slice(11, 19)} UTC`;
  }
}

/** Whole seconds, rounded up, for messages ("60 s"). */
export function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
