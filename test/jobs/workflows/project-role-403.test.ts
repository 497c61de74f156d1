/**
 * A hostile review's finding (lib/jobs/workflows/refusals.ts, lib/n8n/settings.ts; n8n 1.x with projects or sharing, and 2.x): a 403 on an activation change is not only "the API
 * key lacks the scope". n8n answers the same `403 {"message":"Forbidden"}` when the key's *user* has no
 * right to change that workflow: a project viewer, or a workflow shared read-only. A run whose every
 * deactivation met that told the operator to give the key a scope it already has.
 *
 * Grounding: 1.85.4 dist/public-api/v1/shared/middlewares/global.middleware.js `buildScopeMiddleware`
 * (projectScope('workflow:update', 'workflow') on activate/deactivate: `403 { message: 'Forbidden' }` when
 * userHasScopes fails for that workflow); 2.41.3 dist/public-api/public-api-controller.registry.js
 * `createAccessScopeMiddleware` (ProjectScope('workflow:unpublish') on /unpublish: the same 403 body as
 * `createApiKeyScopeMiddleware`). Listing needs only workflow:read on the workflow, which a project
 * viewer has, so these workflows are listed and judged.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";

const KEY = "review-n8n-key-viewer-0001";
const at = "2026-01-01T00:00:00.000Z";
const wf = (id: string, name: string) => ({ id, name, active: true, activeVersionId: `v-${id}`, isArchived: false, tags: [], createdAt: at, updatedAt: at });

describe("n8n 2.x: a key with every scope, whose user only views the project of the unlisted workflows", () => {
  it("the run's warning does not state as fact that the key lacks the workflow:deactivate scope", async () => {
    const s = await serve((req, res) => {
      // The project's role check (ProjectScope('workflow:unpublish')), not the key's scopes, refuses.
      if (req.method === "POST") return json(res, 403, { message: "Forbidden" });
      return json(res, 200, { data: [wf("wfAAAAAAAAAAAA01", "Team A sync"), wf("wfAAAAAAAAAAAA02", "Team A export")], nextCursor: null });
    });
    const policy = parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: []\n    unlisted: deactivate\n`, "t.yaml");

    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy, apply: true });

    expect(report.actions.map((a) => a.status)).toEqual(["failed", "failed"]);
    const said = report.warnings.find((w) => w.includes("403")) ?? "";
    // Either cause named: the key's scope, or the key's user's rights on those workflows (project role, sharing).
    expect(said).toMatch(/project|role|shar|permission|may not change/i);
  });
});
