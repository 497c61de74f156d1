/**
 * What Warden's enforce run needs at the least, in requests and in time. The lower bound of requests,
 * the least a run that lists the projects can send: scope resolution (token check, with the
 * administrator's read that tells whether the token acts as one (lib/gitlab/token-user.ts), and the
 * group look-up), the projects in full pages of 100 and, when they take more than one, one look-up for
 * projects moved while they were listed (lib/jobs/enforce/examine/projects/sweep.ts), the scope's
 * descendant groups in full pages of 100 and one GET /groups/:id per group in scope (what examining
 * group shares costs: no listing carries them), the audit-event pages and author look-ups that attribute
 * the strays (audit-bound.ts), one DELETE per stray, and one GET per subject of an old plan (its 60 s re-check).
 * The floor, the least time Warden's own schedule allows: the same requests, but the project listings
 * Warden's examination sends (listing-bound.ts: the projects come with the group details), every request
 * taking exactly the latency, `concurrency` at a time — the token check, the administrator's read and the
 * scope look-up together; then the scope group's detail and the first page of descendant groups, the rest
 * of the examination and the attribution on every slot (a group's audit-event pages one after another, once
 * one of its strays can be seen: audit-bound.ts),
 * the sweep for moves once the rest is read; then, the plan complete, the removals (with the re-checks
 * beside them, on slots of their own). Under rate limits a request also waits for every budget it counts
 * against, with the simulator's windows (each opened by the first request after the previous one closed).
 */
import type { RateLimitRule } from "../../sim/gitlab/index.ts";

/** What the organisation in scope asks of a run. */
export interface Work {
  projects: number;
  /**
   * The project-listing requests Warden's examination sends (listing-bound.ts), the sweep for moves
   * included where there are more than one: what the floor schedules in place of the full listing.
   */
  listings: number;
  /** Groups in scope, the scope group included. */
  groups: number;
  strays: number;
  /** Subjects read again before removal (a plan older than 60 s); 0 for a fresh plan. */
  rechecks?: number;
  /**
   * What attributing the strays must read (audit-bound.ts), in a run that plans any: audit-event pages,
   * the round trips they take at the least from the examination's opening (a group's pages follow one
   * another, after a stray of it can be seen; then the look-up of an author they name), and authors looked up.
   */
  auditPages?: number;
  auditRounds?: number;
  authors?: number;
}

interface Budget {
  rule: RateLimitRule;
  start: number;
  count: number;
}

const pages = (n: number) => Math.max(1, Math.ceil(n / 100));

/** What resolving the scope sends, all at once: the token check, the administrator's read, the scope group's look-up. */
const SCOPE_REQUESTS = ["GET /user", "GET /application/statistics", "GET /namespaces/:id"] as const;

/** The requests of one examination (a dry run) that sends `listings` project-listing requests, by route. */
function examination(w: Work, listings: number): { route: string; count: number }[] {
  return [
    { route: "GET /groups/:id/projects", count: listings },
    { route: "GET /groups/:id/descendant_groups", count: pages(w.groups - 1) },
    { route: "GET /groups/:id", count: w.groups },
  ];
}

/** The requests that attribute a run's strays: none without strays. */
function attribution(w: Work): { route: string; count: number }[] {
  if (!w.strays) return [];
  return [{ route: "GET /audit_events", count: w.auditPages ?? 0 }, { route: "GET /users/:id", count: w.authors ?? 0 }];
}

/** The fewest requests of a dry run (`apply` false) or of an apply. */
export function lowerBound(w: Work, apply = true): { requests: number; pages: number } {
  const fullListing = pages(w.projects) + (w.projects > 100 ? 1 : 0);
  const examine = [...examination(w, fullListing), ...attribution(w)].reduce((n, r) => n + r.count, 0);
  return { requests: SCOPE_REQUESTS.length + examine + (apply ? w.strays + (w.rechecks ?? 0) : 0), pages: pages(w.projects) };
}

/** The least wall time of a dry run (`apply` false) or of an apply; `rules` are the simulator's budgets. */
export function floorMs(w: Work, concurrency: number, latencyMs: number, rules: RateLimitRule[] = [], apply = true, removalConcurrency = concurrency): number {
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
  /** Requests on `slots` workers, each taken by the first free worker; returns when the last one ends. */
  const parallel = (requests: string[], slots: number, t0: number): number => {
    const free = new Array<number>(Math.max(1, Math.min(slots, requests.length))).fill(t0);
    for (const route of requests) {
      const worker = free.indexOf(Math.min(...free));
      free[worker] = admit(route, free[worker]!) + latencyMs;
    }
    return Math.max(t0, ...free);
  };
  const expand = (list: { route: string; count: number }[]) => list.flatMap(({ route, count }) => Array<string>(count).fill(route));
  // The token check, the administrator's read and the scope look-up go out together.
  let t = parallel([...SCOPE_REQUESTS], concurrency, 0);
  const [listings, descendantPages, groupReads] = examination(w, w.listings);
  // The scope group's detail (which carries its projects) and the first page of its descendants open the examination;
  // everything else shares the slots.
  t = parallel(["GET /groups/:id", "GET /groups/:id/descendant_groups"], concurrency, t);
  // Attribution on the same slots, no sooner than its rounds allow (each group's pages one after another, once a stray of
  // it can be seen; then the author they name); the sweep for moves follows the last answer of the rest.
  const opened = t;
  const sweep = w.listings > 1 ? 1 : 0;
  t = parallel(expand([{ ...listings!, count: listings!.count - sweep }, { ...descendantPages!, count: descendantPages!.count - 1 }, { ...groupReads!, count: groupReads!.count - 1 }, ...attribution(w)]), concurrency, t);
  if (sweep) t = parallel([listings!.route], concurrency, t);
  if (w.strays && w.auditRounds) t = Math.max(t, opened + w.auditRounds * latencyMs);
  if (!apply) return t;
  // Re-checks go out on slots of their own ahead of the removals, so the removals set the pace.
  const removals = parallel(expand([{ route: "DELETE /projects/:id/share/:group_id", count: w.strays }]), removalConcurrency, t);
  const rechecks = w.rechecks ? parallel(expand([{ route: "GET /projects/:id", count: w.rechecks }]), removalConcurrency, t) : t;
  return Math.max(removals, rechecks);
}
