/**
 * read.ts keeps a listed notice's due_date only when it is a calendar day ("never text carried into the
 * report where a date belongs"). It checked the shape and that Date.parse gave a number, but V8 parses
 * 2026-02-30 (as March 2nd), so a server's (or a proxy's) impossible day passed into the report's
 * notice.dueDate, which then no longer fit docs/report.schema.json (format: date), and a consumer validating
 * it rejected the run's record (the second notices review's finding). The day must read back as written now.
 */
import { expect, it } from "vitest";
import { later, run, sim, start } from "../../support/notices-world.ts";

it("a listed due_date that is no calendar day (2026-02-30) is not carried into the report", async () => {
  await start();
  await run({ apply: true });
  sim.addFaults({ kind: "rewrite", route: "GET /projects/:id/issues", times: 10, edit: (body) => (body as object[]).map((issue) => ({ ...issue, due_date: "2026-02-30" })) });
  // run() validates the report against docs/report.schema.json: it throws here.
  const report = await run({ now: later(1) });
  expect(report.actions.map((a) => a.notice?.dueDate ?? null)).toEqual([null, null]);
});
