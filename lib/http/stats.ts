/** Per-run counters: every attempt on the wire, by route. */
import type { Layer } from "./types.ts";

export interface RouteCounters {
  requests: number;
  retries: number;
  rateLimited: number;
  pages: number;
  bytes: number;
}

export interface HttpStats extends RouteCounters {
  byRoute: Record<string, RouteCounters>;
  /** The lowest limit of requests in flight any request went out under, once the server pushed back (concurrency.ts). */
  lowestConcurrency?: number;
}

export class StatsRecorder {
  readonly totals: HttpStats = { ...zero(), byRoute: {} };

  count(route: string, field: keyof RouteCounters, n = 1): void {
    this.totals[field] += n;
    (this.totals.byRoute[route] ??= zero())[field] += n;
  }

  /** A request went out under this limit of requests in flight (Infinity: none). */
  noteConcurrency(limit: number): void {
    if (limit < (this.totals.lowestConcurrency ?? Infinity)) this.totals.lowestConcurrency = limit;
  }

  snapshot(): HttpStats {
    return structuredClone(this.totals);
  }

  /** Whether every request so far was a read (GET or HEAD): all a dry run may send. Routes read "GET /user". */
  onlyReads(): boolean {
    return Object.entries(this.totals.byRoute).every(([route, counts]) => counts.requests === 0 || /^(GET|HEAD) /.test(route));
  }
}

function zero(): RouteCounters {
  return { requests: 0, retries: 0, rateLimited: 0, pages: 0, bytes: 0 };
}

export function statsLayer(stats: StatsRecorder): Layer {
  return (next) => async (req) => {
    stats.count(req.route, "requests");
    const res = await next(req);
    stats.count(req.route, "bytes", Buffer.byteLength(res.text));
    if (res.status === 429) stats.count(req.route, "rateLimited");
    return res;
  };
}
