/**
 * n8n never sends more workflows on a page than the `limit` asked for (1.x refuses a limit over 250,
 * 2.x cuts it to 250, and Warden sends the same limit on every page of a listing). Warden did not check
 * it: a page of a million small workflows passes the JSON bounds (lib/http/json-size.ts), and the job
 * kept an id and an action for each before it looked at the guard or MAX_WORKFLOWS, once the page was
 * judged: 990,000 of them ran a process under the functions' NODE_OPTIONS out of heap, with no report
 * (the n8n review, third pass). Such a page is refused now (lib/paging/n8n.ts), before any is judged.
 */
import { expect, it } from "vitest";
import { reconcileWorkflows } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { json, serve } from "../../support/server.ts";
import { n8nClient } from "../../support/n8n-world.ts";

const policy = parsePolicy("version: 1\nn8n:\n  workflows:\n    keepActive: []\n    unlisted: deactivate\n", "t.yaml");
const id = (i: number) => `w${i.toString(36).padStart(8, "0")}`;

it("a page holding more workflows than the limit Warden asked for (251 to limit=250) is refused, naming both", async () => {
  const data = Array.from({ length: 251 }, (_, i) => ({ id: id(i), name: `n${i}`, active: true }));
  const s = await serve((_req, res) => json(res, 200, { data, nextCursor: null }));
  await expect(reconcileWorkflows({ n8n: n8nClient(s, "n8n-page-over-limit-key-01"), policy, apply: true })).rejects.toThrow("n8n sent 251 items on a page, more than the 250 asked for");
  expect(new URL(s.received[0]!.url, s.url).searchParams.get("limit")).toBe("250");
  expect(s.received.filter((r) => r.method !== "GET")).toEqual([]);
});
