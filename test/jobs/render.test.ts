import { describe, expect, it } from "vitest";
import { renderSlack, renderText, type EnforceReport, type PipelineReport } from "../../lib/jobs/index.ts";

const stats = { requests: 12, retries: 1, rateLimited: 0, pages: 3, durationMs: 1500 };

function enforceReport(dryRun: boolean, statuses: string[]): EnforceReport {
  return {
    job: "enforce",
    dryRun,
    summary: { projects: 300, shares: 400, allowed: 350, exempt: 10, strays: statuses.length, removed: 0, alreadyGone: 0, skipped: 0, failed: 0, maxRemovals: 100, guard: "ok", complete: true },
    actions: statuses.map((status, i) => ({
      type: "remove-share",
      projectId: i,
      project: `acme/p${i % 3}`,
      groupId: 90 + i,
      group: `partners/<agency>&${i}`,
      accessLevel: 30,
      reason: "no allow rule matches",
      status: status as EnforceReport["actions"][number]["status"],
    })),
    stats,
    warnings: ["the token is not an administrator"],
  };
}

function pipelineReport(status: PipelineReport["actions"][number]["status"]): PipelineReport {
  return {
    job: "pipeline",
    dryRun: false,
    summary: status === "refused" ? { allowed: false } : { allowed: true, rule: "allow[0]" },
    actions: [{ type: "create-pipeline", project: "acme/platform/api", ref: "main", variables: [], status, ...(status === "refused" ? { reason: "ref not allowed" } : { webUrl: "https://g/x/-/pipelines/1" }) }],
    stats,
    warnings: [],
  };
}

describe("Slack rendering", () => {
  it.each([
    ["a dry run", enforceReport(true, ["planned"]), "ephemeral"],
    ["applied removals", enforceReport(false, ["done", "failed"]), "in_channel"],
    ["an apply that changed nothing (all failed)", enforceReport(false, ["failed"]), "ephemeral"],
    ["a started pipeline", pipelineReport("created"), "in_channel"],
    ["a refused pipeline", pipelineReport("refused"), "ephemeral"],
  ] as const)("%s goes %s", (_name, report, responseType) => {
    expect(renderSlack(report).response_type).toBe(responseType);
  });

  it("keeps within Slack's 50 blocks with a text fallback, says how many were left out, and escapes mrkdwn", () => {
    const message = renderSlack(enforceReport(true, Array(120).fill("planned")));
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(message.text).toMatch(/^Warden enforce \(dry run\): 120 stray project shares\. 300 projects/);
    expect(JSON.stringify(message.blocks)).toContain("…and 80 more");
    expect(JSON.stringify(message.blocks)).toContain("partners/&lt;agency&gt;&amp;1");
    expect(JSON.stringify(message.blocks)).toContain(":warning: the token is not an administrator");
  });


  it("escapes names that come from the services, group headings included", () => {
    const report = enforceReport(false, ["done"]);
    report.actions[0]!.project = "<!channel> <https://evil.example|Approve>";
    const text = JSON.stringify(renderSlack(report).blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("&lt;!channel&gt;");
  });
});

describe("text rendering", () => {
  it("groups actions by project, puts the status first, and colours only when asked", () => {
    const report = enforceReport(true, ["planned", "planned", "planned", "planned"]);
    const plain = renderText(report, { color: false });
    expect(plain).toMatch(/^Warden enforce \(dry run\): 4 stray project shares\n\nacme\/p0 \(#0\)\n  planned  partners\/<agency>&0  developer  no allow rule matches\n/);
    expect(plain.match(/^acme\/p0 /gm)).toHaveLength(2);
    expect(plain).not.toContain("\x1b[");
    expect(renderText(report, { color: true })).toContain("\x1b[");
    expect(plain).toMatch(/12 requests \(3 pages, 1 retries, 0 rate-limited\) in 1\.5 s\nwarning: the token is not an administrator$/);
  });
});
