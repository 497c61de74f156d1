/** How much of the answers the transport (transport.ts) reads: of one answer, and of those read at once. */

export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * The bytes of the answers being read now, every client of the process together, up to `limit`. Each
 * answer's own bound holds one, but a run reads 16 at once: a server or proxy answering each with tens of
 * MB (under that bound, of few JSON values) held some 2 GB of buffers, past a Lambda's memory, which ended
 * it with no report and no `job failed` line, every run again. Past the limit, the answer whose bytes would
 * go over is not read further, failed as a lost body is (transport.ts: a GET is tried again, when there may
 * be room), and the others are read; no real answers come near it. It bounds the bytes being received, not
 * what their texts and parses hold once read.
 */
export const reading = {
  limit: 64 * 1024 * 1024,
  bytes: 0,
  /** Counts `n` more bytes, unless they would go past the limit. */
  take(n: number): boolean {
    if (this.bytes + n > this.limit) return false;
    this.bytes += n;
    return true;
  },
  give(n: number): void {
    this.bytes -= n;
  },
};

/** An answer's body past the limit (TransportOptions.maxBodyBytes), or past `reading`'s: what the transport names it by. */
export class AnswerTooLarge extends Error {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly bytes: number;
  readonly limit: number;
  /** Past `reading`'s limit, the answers read at once, rather than past the limit of one answer. */
  readonly together: boolean;
  constructor(status: number, contentType: string | string[] | undefined, bytes: number, limit: number, together: boolean) {
    super(`answer over ${limit} bytes${together ? " with the others read at once" : ""}`);
    this.status = status;
    this.contentType = Array.isArray(contentType) ? contentType.join(", ") : contentType;
    this.bytes = bytes;
    this.limit = limit;
    this.together = together;
  }
}
