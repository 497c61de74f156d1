import { describe, expect, it } from "vitest";
import { hasKeyset, keysetSupportFor } from "../../lib/paging/index.ts";

// The spec's "Keyset support by resource" table, row by row.
describe("Keyset support by resource", () => {
  it.each([
    ["/groups/acme/audit_events", { orderBy: "id", sort: "desc" }, true, "group audit events"],
    ["/groups/acme/audit_events", { orderBy: "id", sort: "asc" }, true, undefined],
    ["/groups", { orderBy: "name", sort: "asc" }, false, "groups"],
    ["/groups", { orderBy: "name", sort: "asc" }, true, undefined],
    ["/audit_events", { orderBy: "id", sort: "desc" }, true, "instance audit events"],
    ["/audit_events", { orderBy: "id", sort: "desc" }, false, undefined],
    ["/projects/1/packages/2/pipelines", { orderBy: "id", sort: "desc" }, true, "package pipelines"],
    ["/projects/acme%2Fweb/jobs", { orderBy: "id", sort: "desc" }, true, "project jobs"],
    ["/projects/1/audit_events", { orderBy: "id", sort: "desc" }, true, "project audit events"],
    ["/projects", { orderBy: "id", sort: "asc" }, true, "projects"],
    ["/projects", { orderBy: "id", sort: "desc" }, false, "projects"],
    ["/projects", { orderBy: "name", sort: "asc" }, true, undefined],
    ["/users", { orderBy: "username", sort: "asc" }, false, "users"],
    ["/projects/1/registry/repositories/3/tags", { orderBy: "name", sort: "desc" }, true, "registry repository tags"],
    ["/projects/1/repository/tree", {}, false, "repository tree"],
    ["/projects/1/issues", { orderBy: "relative_position", sort: "asc" }, true, "project issues"],
    ["/groups/1/projects", { orderBy: "id", sort: "asc" }, true, undefined],
    ["/namespaces", { orderBy: "id", sort: "asc" }, true, undefined],
  ] as const)("%s %o authenticated=%s → %s", (path, order, authenticated, resource) => {
    expect(keysetSupportFor(path, order, authenticated)?.resource).toBe(resource);
  });

  it("knows which resources have keyset at all (there the offset limit must never be hit)", () => {
    expect(hasKeyset("/projects")).toBe(true);
    expect(hasKeyset("/groups/1/projects")).toBe(false);
  });
});
