/**
 * The least time Warden's enforce run can take: every request takes exactly the simulated latency,
 * `concurrency` requests at a time, in the job's order — token check, scope look-up and first page
 * one after another; then (for a split group) the subgroup list and the partitions, each a chain of
 * pages handed to workers in order as p-map does; then, the plan complete, the removals. Under rate
 * limits, a request also waits for every budget it counts against, with the simulator's windows
 * (each opened by the first request after the previous one closed).
 */
import type { RateLimitRule } from "../../test/sim/gitlab/index.ts";

const LIST = "GET /groups/:id/projects";

interface Budget {
  rule: RateLimitRule;
  start: number;
  count: number;
}

export function floorMs(partitionPages: number[], strays: number, concurrency: number, latencyMs: number, rules: RateLimitRule[] = []): number {
  const budgets: Budget[] = rules.map((rule) => ({ rule, start: -Infinity, count: 0 }));
  /** The earliest time at or after `t` that every budget of `route` lets a request start, counting it. */
  const admit = (route: string, t: number): number => {
    const applicable = budgets.filter((b) => !b.rule.route || b.rule.route === route);
    for (;;) {
      const blocked = applicable.find((b) => t < b.start + b.rule.windowMs && b.count >= b.rule.limit);
      if (!blocked) break;
      t = blocked.start + blocked.rule.windowMs;
    }
    for (const b of applicable) {
      if (t >= b.start + b.rule.windowMs) Object.assign(b, { start: t, count: 0 });
      b.count++;
    }
    return t;
  };
  const one = (route: string, t: number) => admit(route, t) + latencyMs;
  /** Chains of requests on `concurrency` workers, in order; returns when the last one ends. */
  const parallel = (chains: { route: string; length: number }[], t0: number): number => {
    const free = new Array<number>(Math.min(concurrency, chains.length)).fill(t0);
    for (const chain of chains) {
      const worker = free.indexOf(Math.min(...free));
      for (let i = 0; i < chain.length; i++) free[worker] = one(chain.route, free[worker]!);
    }
    return Math.max(t0, ...free);
  };

  let t = one("GET /user", 0);
  t = one("GET /namespaces/:id", t);
  t = one(LIST, t);
  const [first = 1] = partitionPages;
  if (partitionPages.length === 1) {
    for (let page = 1; page < first; page++) t = one(LIST, t);
  } else {
    t = one("GET /groups/:id/subgroups", t);
    t = parallel(partitionPages.map((length) => ({ route: LIST, length })), t);
  }
  return parallel(Array.from({ length: strays }, () => ({ route: "DELETE /projects/:id/share/:group_id", length: 1 })), t);
}

/** The fewest requests the job needs: scope resolution (token check, group look-up), full pages, one DELETE per stray. */
export function lowerBound(inScope: number, strays: number): { requests: number; pages: number } {
  const pages = Math.max(1, Math.ceil(inScope / 100));
  return { requests: 2 + pages + strays, pages };
}
