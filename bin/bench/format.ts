/** How the tables write times, memory, ratios and outcomes. */
import type { RunResult } from "./run-result.ts";

/** Seconds to a tenth, or "—" for a run that has none. */
export function s(ms: number | undefined): string {
  return ms === undefined || Number.isNaN(ms) ? "—" : `${(ms / 1000).toFixed(1)} s`;
}

/** Milliseconds under 10 s, seconds above. */
export function ms(n: number | undefined): string {
  return n === undefined || Number.isNaN(n) ? "—" : n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;
}

export function ratio(a: number, b: number, digits = 2): string {
  return `${(a / b).toFixed(digits)}×`;
}

export function count(n: number): string {
  return n.toLocaleString("en");
}

export function rssCell(r: Partial<RunResult>): string {
  return r.maxRssKB === undefined || Number.isNaN(r.maxRssKB) ? "—" : `${Math.round(r.maxRssKB / 1024)} MB`;
}

/** "yes", or "no" with the start of the error. */
export function outcomeCell(ok: boolean, error?: string): string {
  return ok ? "yes" : `no${error ? `: ${error.slice(0, 80)}` : ""}`;
}
