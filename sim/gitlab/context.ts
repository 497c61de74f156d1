import { HttpError } from "./http.ts";
import type { Reply } from "./http.ts";
import type { AuditLog } from "./audit-log.ts";
import type { Tier } from "./dataset.ts";
import type { Caller, Store } from "./store.ts";

export interface RequestContext {
  method: string;
  /** The path as received, still encoded, with `/api/v4`. */
  rawPath: string;
  /** The query string as received, without `?`. */
  rawQuery: string;
  /** Query parameters, overlaid by the body's. */
  params: Record<string, unknown>;
  /** Decoded path parameters (`:id` → `id`). */
  path: Record<string, string>;
  caller: Caller | null;
  store: Store;
  /** `http://127.0.0.1:<port>`: links and redirects are absolute. */
  baseUrl: string;
  offsetLimit: number;
  /** Projects carry `visibility` and listings filter by it ("unfiltered": carry it, ignore the filter; "none": neither). */
  projectVisibility: "full" | "unfiltered" | "none";
  /** Whether a group's detail embeds its projects (`with_projects`), as every v4 GitLab does; "empty": empty lists. */
  detailProjects: boolean | "empty";
  /** Whether a tag carries `protected`, as recent GitLab's do (false: an older version's tags, without it). */
  tagProtectedField: boolean;
  /** The instance's audit events, and whether its tier has them (a "free" one answers `freeStatus`). */
  audit: { log: AuditLog; tier: Tier; freeStatus: 403 | 404 };
}

export type Handler = (ctx: RequestContext) => Reply;

/** Grape's validation error: 400 `{"error":"<name> is invalid"}`. */
export const invalid = (name: string, why = "is invalid"): HttpError => new HttpError(400, { error: `${name} ${why}` });

export function stringParam(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.params[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" && typeof value !== "number") throw invalid(name);
  return String(value);
}

/** Booleans accept exactly `true` or `false`. */
export function boolParam(ctx: RequestContext, name: string, fallback: boolean): boolean {
  const value = ctx.params[name];
  if (value === undefined) return fallback;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw invalid(name);
}

export function intParam(ctx: RequestContext, name: string): number | undefined {
  const value = stringParam(ctx, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw invalid(name);
  return Number(value);
}

export function sortParam(ctx: RequestContext, fallback: "asc" | "desc"): "asc" | "desc" {
  const sort = stringParam(ctx, "sort") ?? fallback;
  if (sort !== "asc" && sort !== "desc") throw invalid("sort", "does not have a valid value");
  return sort;
}
