/**
 * The shares of GitLab's project listings, as a broken server or a proxy rewrites them. A listing's items
 * are checked for an id (lib/paging/items.ts), a group's detail for its `shared_with_groups` array; a
 * project item's `shared_with_groups` missing, null, or naming its groups otherwise than by id, read as "no
 * shares" (or as another group's), and every stray share of those projects passed for in policy: a run
 * complete, exit 0. It is an error naming the project instead (lib/gitlab/answer-shapes.ts).
 */
import { expect, it } from "vitest";
import { run, setup } from "../../support/enforce-world.ts";

/** Every project in an answer (a listing's page, or a group's detail with its projects) rewritten by `edit`. */
const everyProject = (edit: (project: Record<string, unknown>) => Record<string, unknown>) => (body: unknown): unknown => {
  const isProject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && "path_with_namespace" in v;
  if (Array.isArray(body)) return body.map((item) => (isProject(item) ? edit(item) : item));
  if (typeof body === "object" && body !== null && Array.isArray((body as { projects?: unknown }).projects)) {
    return { ...body, projects: (body as { projects: unknown[] }).projects.map((item) => (isProject(item) ? edit(item) : item)) };
  }
  return body;
};

const EDITS: [string, (project: Record<string, unknown>) => Record<string, unknown>][] = [
  ["left out", ({ shared_with_groups: _dropped, ...rest }) => rest],
  ["null", (p) => ({ ...p, shared_with_groups: null })],
  ["a group named by a string id", (p) => ({ ...p, shared_with_groups: (p["shared_with_groups"] as Record<string, unknown>[]).map((s) => ({ ...s, group_id: String(s["group_id"]) })) })],
];

it.each(EDITS)("a project listing whose shared_with_groups is %s fails the run naming a project, never 'in policy'", async (_what, edit) => {
  const { strays } = await setup({ projects: 120, faults: [{ kind: "rewrite", times: 1_000_000, edit: everyProject(edit) }] });
  expect(strays.length, "the seeded organisation has stray project shares").toBeGreaterThan(0);
  await expect(run()).rejects.toThrow(/^GitLab answered project acme\/\S+ without its shared_with_groups as a list of groups, each with its id, full path and access level: its shares cannot be judged/);
});
