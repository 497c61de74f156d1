/**
 * A change whose answer was lost after n8n may have made it (a gateway's 502/504 once n8n had the POST, a
 * connection dropped after the request was sent) was recorded as plainly "failed", with the gateway's words,
 * in the report and the audit line: the report said a workflow was still active when n8n had switched it off.
 * The POST is never sent again; the workflow is read back once (a GET): as asked, the change is done, and its
 * reason says so; otherwise, or if the read fails, it may or may not have been made, and is not lasting.
 */
import { describe, expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { refusalsOf } from "../../../lib/jobs/workflows/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";
import { validReport } from "../../support/report.ts";

const KEY = "n8n-answer-lost-key-0002";
const at = "2026-01-01T00:00:00.000Z";
const policy = parsePolicy("version: 1\nn8n:\n  workflows: { keepActive: [], unlisted: deactivate }\n", "lost.yaml");

/**
 * One active stray, "A"; the gateway in front answers its unpublish with a 504 (or drops the connection),
 * after n8n switched it off unless `made` is false; `readBack: "fails"` has the GET answer 502 too.
 */
async function gatewayLosesAnswer(answer: "504" | "drop", { made = true, readBack = "ok" }: { made?: boolean; readBack?: "ok" | "fails" } = {}) {
  const state = { active: true };
  const wf = () => ({ id: "A", name: "Stray", active: state.active, activeVersionId: state.active ? "v1" : null, isArchived: false, tags: [], createdAt: at, updatedAt: at });
  const s = await serve((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (req.method === "GET" && path === "/api/v1/workflows") return json(res, 200, { data: [wf()], nextCursor: null });
    if (req.method === "GET" && path === "/api/v1/workflows/A") return readBack === "ok" ? json(res, 200, wf()) : json(res, 502, { message: "bad gateway" });
    if (req.method === "POST" && path === "/api/v1/workflows/A/unpublish") {
      if (made) state.active = false; // n8n made the change...
      if (answer === "drop") return req.socket.destroy(); // ...and the answer never came back
      return json(res, 504, { message: "upstream timed out" });
    }
    return json(res, 404, { message: "not found" });
  });
  return { s, state };
}

async function run(s: Awaited<ReturnType<typeof serve>>) {
  const audit: Record<string, unknown>[] = [];
  const report = validReport(await reconcileWorkflows({ n8n: n8nClient(s, KEY), policy, apply: true, audit: { info: (_m, fields) => audit.push(fields ?? {}) } }));
  return { report, audit, action: report.actions[0]! };
}

describe("workflows: a change whose answer was lost", () => {
  it.each(["504", "drop"] as const)("is not reported as plainly failed when n8n made it (%s)", async (answer) => {
    const { s, state } = await gatewayLosesAnswer(answer);
    const { action, audit } = await run(s);
    expect(state.active).toBe(false);
    // Sent once: never repeated after it may have arrived.
    expect(s.received.filter((r) => r.method === "POST")).toHaveLength(1);
    // Either read back and found made, or said to be unknown: never "failed" alone with the gateway's words.
    const saysMaybe = action.status === "done" || /may (or may not )?have (been made|happened)/.test(action.error ?? "");
    expect({ status: action.status, error: action.error, saysMaybe }).toMatchObject({ saysMaybe: true });
    expect(audit[0]?.["outcome"] === "done" || /may (or may not )?have/.test(String(audit[0]?.["error"]))).toBe(true);
  });

  it("read back as asked, is done, and its reason says the answer was lost and what the read found", async () => {
    const { s } = await gatewayLosesAnswer("504");
    const { action, audit } = await run(s);
    expect(action).toMatchObject({ status: "done", reason: expect.stringMatching(/; n8n's answer was lost \(.*504.*\), but the workflow read back is inactive$/) });
    expect(action.error).toBeUndefined();
    expect(audit[0]).toMatchObject({ outcome: "done", rule: action.reason });
    expect(s.received.map((r) => `${r.method} ${new URL(r.url, "http://x").pathname}`)).toEqual(["GET /api/v1/workflows", "GET /api/v1/workflows/A", "POST /api/v1/workflows/A/unpublish", "GET /api/v1/workflows/A"]);
  });

  it("read back otherwise, or unread, may or may not have been made: failed, not lasting, the POST not repeated", async () => {
    for (const [made, readBack, found] of [
      [false, "ok", /\(read back, GET \/workflows\/:id answered with the workflow still active\)/],
      [true, "fails", /\(reading the workflow back failed too: .*502.*\)/],
    ] as const) {
      const { s } = await gatewayLosesAnswer("drop", { made, readBack });
      const { report, action } = await run(s);
      expect(action.status).toBe("failed");
      expect(action.error).toMatch(/: the change may or may not have been made \(.*\); the next run converges$/);
      expect(action.error).toMatch(found);
      expect(action.lasting).toBeUndefined();
      expect(refusalsOf(report)?.refused).toEqual([]);
      expect(s.received.filter((r) => r.method === "POST")).toHaveLength(1);
    }
  });
});
