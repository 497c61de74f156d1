/** Spec conformance, docs/api-contract.md (GitLab REST API v4): §4 which resources page by keyset, and Warden's table of them. */
import { describe, expect, it } from "vitest";
import { type Group, type Project } from "../../../lib/gitlab/index.ts";
import { KEYSET_SUPPORT, keysetSupportFor } from "../../../lib/paging/index.ts";
import { headerValue, queryOf } from "../../support/spec.ts";
import { anonymousListing, byId, gitlab, publicOrganisation } from "../../support/spec-gitlab.ts";

describe("§4 Keyset support by resource", () => {
  type Sort = "asc" | "desc";
  interface Row {
    resource: string;
    path: string;
    orderBy: readonly (string | undefined)[];
    sort: readonly (Sort | undefined)[];
    access: "authenticated only" | "unauthenticated only" | "authenticated and unauthenticated";
    since?: string;
  }
  const ISSUE_ORDERS = ["created_at", "updated_at", "title", "id", "weight", "due_date", "relative_position"];
  // The sheet's table, row by row; paths have their parameters encoded, as Warden's listings pass them.
  const TABLE: Row[] = [
    { resource: "Group audit events", path: "/groups/acme%2Fmobile/audit_events", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Groups", path: "/groups", orderBy: ["name"], sort: ["asc"], access: "unauthenticated only" },
    { resource: "Instance audit events", path: "/audit_events", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Package pipelines", path: "/projects/acme%2Fweb/packages/17/pipelines", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Project jobs", path: "/projects/42/jobs", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Project audit events", path: "/projects/acme%2Fweb/audit_events", orderBy: ["id"], sort: ["desc"], access: "authenticated only" },
    { resource: "Projects", path: "/projects", orderBy: ["id"], sort: ["asc", "desc"], access: "authenticated and unauthenticated" },
    {
      resource: "Users",
      path: "/users",
      orderBy: ["id", "name", "username", "created_at", "updated_at"],
      sort: ["asc", "desc"],
      access: "authenticated and unauthenticated",
    },
    { resource: "Registry repository tags", path: "/projects/42/registry/repositories/7/tags", orderBy: ["name"], sort: ["asc", "desc"], access: "authenticated only" },
    { resource: "Repository tree listing", path: "/projects/acme%2Fweb/repository/tree", orderBy: [undefined], sort: [undefined], access: "authenticated and unauthenticated", since: "17.1" },
    { resource: "Project issues", path: "/projects/acme%2Fweb/issues", orderBy: ISSUE_ORDERS, sort: ["asc", "desc"], access: "authenticated and unauthenticated", since: "18.3" },
  ];

  it.each(TABLE)("$resource: order_by $orderBy, sort $sort, $access", (row) => {
    const callers = row.access === "authenticated and unauthenticated" ? [true, false] : [row.access === "authenticated only"];
    for (const authenticated of callers) {
      for (const orderBy of row.orderBy) {
        for (const sort of row.sort) {
          const found = keysetSupportFor(row.path, { orderBy, sort }, authenticated);
          expect(found, `${orderBy} ${sort} authenticated=${authenticated}`).toBeDefined();
          expect(row.resource.toLowerCase().startsWith(found!.resource)).toBe(true);
          expect(found!.since).toBe(row.since);
        }
      }
    }
    const [orderBy, sort, authenticated] = [row.orderBy[0], row.sort[0], callers[0]!];
    // The other kind of caller, where the row is for one kind only.
    if (callers.length === 1) expect(keysetSupportFor(row.path, { orderBy, sort }, !authenticated)).toBeUndefined();
    // An order_by the row does not list (for the repository tree, any order_by at all).
    expect(keysetSupportFor(row.path, { orderBy: "star_count", sort }, authenticated)).toBeUndefined();
    // A sort the row does not list.
    for (const other of (["asc", "desc"] as const).filter((s) => orderBy !== undefined && !row.sort.includes(s))) {
      expect(keysetSupportFor(row.path, { orderBy, sort: other }, authenticated)).toBeUndefined();
    }
  });

  it("No resource has keyset in Warden beyond the sheet's table", () => {
    expect(KEYSET_SUPPORT).toHaveLength(TABLE.length);
    for (const path of ["/groups/1/projects", "/namespaces", "/groups/1/descendant_groups", "/projects/1/issues/2/notes", "/projects/1/pipelines"]) {
      for (const orderBy of [undefined, "id", "name"]) expect(keysetSupportFor(path, { orderBy }, true), `${path} ${orderBy}`).toBeUndefined();
    }
  });

  it("Projects (order_by=id, authenticated and unauthenticated): a real listing picks keyset by itself, ascending and descending, with and without a token", async () => {
    // Public projects, so the anonymous listing holds them all as the token's does.
    const { sim, client, dataset } = await gitlab({ dataset: publicOrganisation(230) });
    const all = dataset.projects.map((p) => p.id).sort(byId);
    const withToken = await client.list<Project>("/projects", {}, { order: { orderBy: "id", sort: "desc" } }).collect();
    const anonymous = await anonymousListing<Project>(sim.url, "/projects", { orderBy: "id", sort: "asc" }).collect();
    expect(withToken.map((p) => p.id)).toEqual([...all].reverse());
    expect(anonymous.map((p) => p.id)).toEqual(all);
    expect(sim.requests.map((r) => [queryOf(r.url).get("pagination"), queryOf(r.url).get("sort"), headerValue(r.headers, "private-token") !== undefined])).toEqual([
      ...Array(3).fill(["keyset", "desc", true]),
      ...Array(3).fill(["keyset", "asc", false]),
    ]);
  });

  it("Groups (order_by=name, sort=asc, unauthenticated only): an anonymous listing picks keyset; Warden's authenticated client lists groups by offset", async () => {
    const { sim, client, dataset } = await gitlab({ projects: 300 });
    const anonymous = await anonymousListing<Group>(sim.url, "/groups", { orderBy: "name", sort: "asc" }).collect();
    expect(anonymous.map((g) => g.id).sort(byId)).toEqual(dataset.groups.filter((g) => g.visibility === "public").map((g) => g.id));
    const first = sim.requests[0]!;
    expect([queryOf(first.url).get("pagination"), queryOf(first.url).get("order_by"), queryOf(first.url).get("sort")]).toEqual(["keyset", "name", "asc"]);
    expect(headerValue(first.headers, "private-token")).toBeUndefined();

    sim.resetCounters();
    const authenticated = await client.list<Group>("/groups", {}, { order: { orderBy: "name", sort: "asc" } }).collect();
    expect(authenticated.map((g) => g.name)).toEqual(dataset.groups.map((g) => g.name).sort());
    expect(sim.requests.every((r) => !queryOf(r.url).has("pagination") && queryOf(r.url).get("order_by") === "name")).toBe(true);
    expect(sim.counters.status["405"]).toBeUndefined();
  });
});
