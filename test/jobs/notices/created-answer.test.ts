/**
 * The answer to the POST that opens a notice, from a hostile or broken GitLab, or a proxy rewriting it:
 * a listed notice's due_date is kept only when it is a calendar day (read.ts), but the new notice's was
 * taken from the answer as it came, so a server's text landed in the report's `notice.dueDate` (which
 * then failed its own schema, `format: date`) and in its renderings (a review of notices). The report
 * now carries the date Warden sent (lib/jobs/notices/write.ts).
 */
import { expect, it } from "vitest";
import { POLICY, run, sim, start } from "../../support/notices-world.ts";

it("a due_date in the answer that is no calendar day is not carried into the report", async () => {
  await start();
  sim.addFaults({ kind: "rewrite", route: "POST /projects/:id/issues", times: 10, edit: (body) => ({ ...(body as object), due_date: "2026-12-07 <img src=x onerror=alert(1)> @all" }) });
  // run() validates the report against docs/report.schema.json.
  const report = await run({ apply: true, policy: POLICY });
  expect(report.actions.map((a) => [a.status, a.notice?.dueDate])).toEqual([
    ["noticed", "2026-12-07"],
    ["noticed", "2026-12-07"],
  ]);
  expect(JSON.stringify(report)).not.toContain("onerror");
});

// The recent-changes review: the answer's web_url, beside its due_date, went into the report as sent, where renderers link it.
it.each([
  ["a javascript: address", "javascript:alert(document.domain)//<img src=x onerror=alert(1)>"],
  ["another origin's", "https://attacker.example/security/access-notices/-/issues/1"],
  ["not an issue's", "GITLAB/security/access-notices/-/issues/1/%2E%2E/%2E%2E/evil"],
])("a web_url in the answer that is %s is not carried into the report, nor one listed later", async (_what, url) => {
  await start();
  const rewrite = (body: unknown) => ({ ...(body as object), web_url: url.replace("GITLAB", sim.url) });
  sim.addFaults({ kind: "rewrite", route: "POST /projects/:id/issues", times: 10, edit: rewrite });
  const report = await run({ apply: true, policy: POLICY });
  const urls = report.actions.flatMap((a) => (a.notice ? [a.notice.url] : []));
  expect(urls.length).toBeGreaterThan(0);
  for (const u of urls) expect(u).toMatch(new RegExp(`^${sim.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/security/access-notices/-/issues/\\d+$`));
  sim.addFaults({ kind: "rewrite", route: "GET /projects/:id/issues", times: 10, edit: (body) => (body as object[]).map(rewrite) });
  const again = await run({ apply: false, policy: POLICY });
  const listed = again.actions.flatMap((a) => (a.notice?.url ? [a.notice.url] : []));
  expect(listed.length).toBeGreaterThan(0);
  for (const u of listed) expect(u).toMatch(new RegExp(`^${sim.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/security/access-notices/-/issues/\\d+$`));
});
