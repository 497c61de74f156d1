/**
 * What n8n (or a proxy in front of it) can send that the workflows job took at its word, found by a
 * hostile review: a workflow listed again on a later page got two opposite changes, both made; a 200 to an
 * activation whose body said nothing changed was recorded "done"; a long name was cut before it was
 * redacted, leaving a token's fragment too short to be known for one; a workflow of a shape no n8n writes
 * ended every run with a bare TypeError.
 */
import { describe, expect, it } from "vitest";
import { exitCode, reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { renderMarkdown, renderSlack, renderText } from "../../../lib/jobs/render/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { redactOutput } from "../../../lib/redact/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";

const KEY = "hostile-n8n-key-000001";
const at = "2026-01-01T00:00:00.000Z";
const wf = (id: string, name: string, active: boolean) => ({ id, name, active, isArchived: false, tags: [], createdAt: at, updatedAt: at });
const policyOf = (keepActive = "[]", more = "") => parsePolicy(`version: 1\nn8n:\n  workflows:\n    keepActive: ${keepActive}\n    unlisted: deactivate\n${more}`, "t.yaml");
const posts = (s: Awaited<ReturnType<typeof serve>>) => s.received.filter((r) => r.method === "POST").map((r) => r.url);

describe("the workflows job against a hostile n8n", () => {
  it("a workflow listed again on a later page is judged once, as first listed, and said", async () => {
    const s = await serve((req, res) => {
      if (req.method === "POST") return json(res, 200, { id: "A", active: true });
      const cursor = new URL(req.url, "http://x").searchParams.get("cursor");
      if (!cursor) return json(res, 200, { data: [wf("A", "Approved", false)], nextCursor: "c1" });
      if (cursor === "c1") return json(res, 200, { data: [wf("B", "Other", false)], nextCursor: "c2" });
      return json(res, 200, { data: [wf("C", "Third", false), wf("A", "Renamed", true)], nextCursor: null });
    });
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policyOf('["name:Approved"]', "    listedInactive: publish\n"), apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.type} ${a.status}`)).toEqual(["A activate done"]);
    expect(posts(s)).toEqual(["/api/v1/workflows/A/publish"]);
    expect(report.summary.workflows).toBe(3);
    expect(report.warnings).toContain("n8n listed 1 workflow more than once (workflows created or deleted while it was listed shift its pages): each was judged once, as first listed");
  });

  it("a 200 whose workflow is still as it was, or is another one, is a change not made", async () => {
    for (const answer of [{ id: "A", name: "Stray", active: true, activeVersionId: "v1" }, { id: "Z", name: "Else", active: false, activeVersionId: null }]) {
      const s = await serve((req, res) => (req.method === "POST" ? json(res, 200, answer) : json(res, 200, { data: [{ ...wf("A", "Stray", true), activeVersionId: "v1" }], nextCursor: null })));
      const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policyOf(), apply: true });
      expect(posts(s)).toEqual(["/api/v1/workflows/A/unpublish"]);
      expect(report.actions.map((a) => [a.status, a.error])).toEqual([["failed", expect.stringMatching(/^n8n answered 200 to POST \/workflows\/:id\/unpublish, but (with the workflow still active|about another workflow): the change is not taken as made$/)]]);
      expect(exitCode(report)).toBe(1);
    }
  });

  it("a long name holding a token is redacted before it is cut: no output shows a fragment of it", async () => {
    const secretPart = "abcdefghijklmnopqrstuvwxyz1234";
    const s = await serve((_req, res) => json(res, 200, { data: [wf("A", `${"n".repeat(180)}glpat-${secretPart}`, true)], nextCursor: null }));
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policyOf(), apply: false });
    const outputs = [renderText(report, { color: false }), renderMarkdown(report), JSON.stringify(renderSlack(report)), JSON.stringify(report)].map(redactOutput);
    expect(outputs.filter((out) => out.includes(secretPart.slice(0, 10)))).toEqual([]);
  });

  it("a workflow of a shape no n8n writes is left as it is and said; the others are judged", async () => {
    for (const bad of [{ name: null }, { tags: "x" }, { tags: [null] }, { active: "yes" }]) {
      const s = await serve((req, res) => (req.method === "POST" ? json(res, 200, { id: "B", active: false }) : json(res, 200, { data: [{ ...wf("A", "Flow", true), ...bad }, wf("B", "Stray", true)], nextCursor: null })));
      const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policyOf(), apply: true });
      expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["B done"]);
      expect(report.warnings).toContain("n8n listed 1 workflow in a shape no n8n writes (an id not of letters, digits, _ and -, a name that is not text, tags that are not a list of names): left as they are");
    }
  });

  it("a workflow whose id is not as n8n makes them is left as it is and said: no request names it", async () => {
    const odd = ["..", ".", "a/b", "a%2Fb", "a?b", "a b"];
    const s = await serve((req, res) => (req.method === "POST" ? json(res, 200, { id: "B", active: false }) : json(res, 200, { data: [...odd.map((id) => wf(id, "Stray", true)), wf("B", "Stray", true)], nextCursor: null })));
    const report = await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy: policyOf(), apply: true });
    expect(report.actions.map((a) => `${a.workflowId} ${a.status}`)).toEqual(["B done"]);
    expect(s.received.map((r) => `${r.method} ${new URL(r.url, "http://x").pathname}`)).toEqual(["GET /api/v1/workflows", "GET /api/v1/workflows/B", "POST /api/v1/workflows/B/unpublish"]);
    expect(report.warnings).toContain(`n8n listed ${odd.length} workflows in a shape no n8n writes (an id not of letters, digits, _ and -, a name that is not text, tags that are not a list of names): left as they are`);
  });
});
