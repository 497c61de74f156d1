/**
 * Where GitLab offers keyset pagination, as data (spec §4 "Keyset support by resource"). Choosing a
 * strategy is a table look-up, not branching code; a new row is all a newly supported endpoint needs.
 */

export type KeysetAccess = "authenticated" | "unauthenticated" | "any";

export interface KeysetSupport {
  resource: string;
  /** Matches the API path without /api/v4, path parameters already encoded. */
  path: RegExp;
  /** null: keyset takes no order_by on this resource (repository tree). */
  orderBy: readonly string[] | null;
  sort: readonly ("asc" | "desc")[];
  access: KeysetAccess;
  since?: string;
  /** Offset pagination is not offered at all (users, since 17.0): always keyset, in its first order by default. */
  offsetUnavailable?: true;
}

const SEGMENT = "[^/]+";

export const KEYSET_SUPPORT: readonly KeysetSupport[] = [
  { resource: "group audit events", path: new RegExp(`^/groups/${SEGMENT}/audit_events$`), orderBy: ["id"], sort: ["desc"], access: "authenticated" },
  { resource: "groups", path: /^\/groups$/, orderBy: ["name"], sort: ["asc"], access: "unauthenticated" },
  { resource: "instance audit events", path: /^\/audit_events$/, orderBy: ["id"], sort: ["desc"], access: "authenticated" },
  { resource: "package pipelines", path: new RegExp(`^/projects/${SEGMENT}/packages/${SEGMENT}/pipelines$`), orderBy: ["id"], sort: ["desc"], access: "authenticated" },
  { resource: "project jobs", path: new RegExp(`^/projects/${SEGMENT}/jobs$`), orderBy: ["id"], sort: ["desc"], access: "authenticated" },
  { resource: "project audit events", path: new RegExp(`^/projects/${SEGMENT}/audit_events$`), orderBy: ["id"], sort: ["desc"], access: "authenticated" },
  { resource: "projects", path: /^\/projects$/, orderBy: ["id"], sort: ["asc", "desc"], access: "any" },
  { resource: "users", path: /^\/users$/, orderBy: ["id", "name", "username", "created_at", "updated_at"], sort: ["asc", "desc"], access: "any", offsetUnavailable: true },
  { resource: "registry repository tags", path: new RegExp(`^/projects/${SEGMENT}/registry/repositories/${SEGMENT}/tags$`), orderBy: ["name"], sort: ["asc", "desc"], access: "authenticated" },
  { resource: "repository tree", path: new RegExp(`^/projects/${SEGMENT}/repository/tree$`), orderBy: null, sort: ["asc", "desc"], access: "any", since: "17.1" },
  { resource: "project issues", path: new RegExp(`^/projects/${SEGMENT}/issues$`), orderBy: ["created_at", "updated_at", "title", "id", "weight", "due_date", "relative_position"], sort: ["asc", "desc"], access: "any", since: "18.3" },
];

export interface ListingOrder {
  orderBy?: string;
  sort?: "asc" | "desc";
}

/** The keyset row that serves this path, order and caller, if any. */
export function keysetSupportFor(path: string, order: ListingOrder, authenticated: boolean): KeysetSupport | undefined {
  return KEYSET_SUPPORT.find(
    (row) =>
      row.path.test(path) &&
      (row.access === "any" || (row.access === "authenticated") === authenticated) &&
      (row.orderBy === null ? order.orderBy === undefined : order.orderBy !== undefined && row.orderBy.includes(order.orderBy)) &&
      row.sort.includes(order.sort ?? row.sort[0]!),
  );
}

/** The keyset row of a resource that offers no offset pagination at all, if this path is one. */
export function offsetUnavailableFor(path: string): KeysetSupport | undefined {
  return KEYSET_SUPPORT.find((row) => row.offsetUnavailable && row.path.test(path));
}

/** Whether the resource has keyset at all (for any order or caller): then the offset limit must never be hit. */
export function hasKeyset(path: string): boolean {
  return KEYSET_SUPPORT.some((row) => row.path.test(path));
}
