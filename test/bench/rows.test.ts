/**
 * The targets of the CLI, notices and durable rows (issue 32 points 3 to 5, issue 30 point 7), fed
 * fabricated rows, so no benchmark runs: each target is met by a row that meets it and not met by one
 * that misses it by a little, and each row's table stays as wide as its header.
 */
import { describe, expect, it } from "vitest";
import { benchMarkdown, type RunInfo } from "../../bin/bench/markdown.ts";
import type { Section } from "../../bin/bench/row-kind.ts";
import { checkpointTargets, largestCheckpointCell } from "../../bin/bench/rows/checkpoint-targets.ts";
import { CHECKPOINT_LIMIT } from "../../functions/shared/durable/steps.ts";
import { cliRows, type CliRow } from "../../bin/bench/rows/cli.ts";
import { listingPages, noticeTargets, type NoticeRun, type NoticesRow } from "../../bin/bench/rows/notice-targets.ts";
import { NOTIFY_POLICY, noticesRows } from "../../bin/bench/rows/notices.ts";
import { parseSettings } from "../../bin/bench/settings.ts";
import { parsePolicy } from "../../lib/policy/index.ts";

const settings = parseSettings(["--cli", "10000,100000", "--notices", "10000"]);
const info: RunInfo = { machine: "2 × Test CPU, Node 24.0.0", date: "2026-11-29 03:00 UTC", commit: "abc1234", clean: true, load: [1, 1] };
const met = (targets: { met: boolean }[]) => targets.map((t) => t.met);

describe("the CLI rows", () => {
  const row = (projects: number, mb: number, extra: Partial<CliRow> = {}): CliRow => ({ projects, wallMs: 9_000, maxRssKB: mb * 1024, removed: 30, requests: 500, converged: true, ...extra });

  it("are held to 150 MB at 100,000 projects, and to converging at every size", () => {
    expect(met(cliRows.targets([row(10_000, 160), row(100_000, 150)], settings))).toEqual([true, true]);
    expect(met(cliRows.targets([row(10_000, 120, { converged: false, error: "exit 1" }), row(100_000, 151)], settings))).toEqual([false, false]);
    // Without a 100,000-project row, no memory target is claimed.
    expect(cliRows.targets([row(10_000, 120)], settings).map((t) => t.target)).toEqual(["the CLI as a user runs it: converged at every size"]);
  });

  it("say they ran without NODE_OPTIONS, in a table as wide as its header", () => {
    const markdown = benchMarkdown(settings, info, [{ kind: cliRows, rows: [row(100_000, 140)] }] as Section[]);
    expect(markdown).toContain("no `NODE_OPTIONS`");
    expect(markdown).toContain("| 100,000 | 9000 ms | 500 | 30 | 140 MB | yes |");
    expect(markdown).toContain("- **met**: the CLI as a user runs it (no NODE_OPTIONS): peak RSS ≤ 150 MB at 100,000 projects (140 MB)");
  });
});

describe("the notices row", () => {
  const run = (name: NoticeRun["run"], fields: Partial<NoticeRun> = {}): NoticeRun => ({ run: name, wallMs: 1_000, requests: 500, listingPages: 0, closedPages: 0, issuesOpened: 0, otherWrites: 0, openNotices: 0, noticedShares: 0, ...fields });
  const good = (): NoticesRow => ({
    projects: 9_750,
    strays: 250,
    authors: 5,
    runs: [
      run("plain dry run"),
      run("notify dry run", { requests: 502, listingPages: 1, closedPages: 1 }),
      run("notify apply", { requests: 760, listingPages: 4, closedPages: 1, issuesOpened: 250, openNotices: 250, noticedShares: 250 }),
      run("notify apply again", { requests: 503, listingPages: 3, openNotices: 250, noticedShares: 250, notices: { toOpen: 0, opened: 0, pending: 250, nextDueInDays: 7, due: 0, removed: 0, toClose: 0, closed: 0, reported: 0 } }),
    ],
  });

  it("lists at most a page per 100 open notices, one at the least", () => {
    expect([0, 1, 100, 101, 250].map(listingPages)).toEqual([1, 1, 1, 2, 3]);
  });

  it("meets every target when the notice runs add only the listing, the notices and their assignees", () => {
    expect(met(noticeTargets(good()))).toEqual([true, true, true, true, true]);
  });

  it("misses the dry run's target when it writes or lists a page too many, of the open notices or the closed ones", () => {
    const row = good();
    row.runs[1] = { ...row.runs[1]!, listingPages: 2, requests: 503 };
    expect(met(noticeTargets(row))[0]).toBe(false);
    row.runs[1] = { ...good().runs[1]!, closedPages: 2, requests: 503 };
    expect(met(noticeTargets(row))[0]).toBe(false);
    row.runs[1] = { ...good().runs[1]!, otherWrites: 1 };
    expect(met(noticeTargets(row))[0]).toBe(false);
    // A request more than its listings (of the closed notices, then, it read none).
    row.runs[1] = { ...good().runs[1]!, closedPages: 0 };
    expect(noticeTargets(row)[0]).toMatchObject({ met: false, measured: "+2 requests: 1 listing page(s); 0 writes" });
  });

  it("misses the dry run's target when it reads the token's user again, and says so", () => {
    const row = good();
    row.runs[0] = { ...row.runs[0]!, byRoute: { "GET /user": 1 } };
    row.runs[1] = { ...row.runs[1]!, requests: 503, byRoute: { "GET /user": 2, "GET /projects/:id/issues": 2 } };
    const [dry] = noticeTargets(row);
    expect(dry).toMatchObject({ met: false, measured: "+3 requests: 1 listing page(s), 1 of closed notices, GET /user +1; 0 writes" });
  });

  it("misses the second run's targets when it opens a notice, leaves a duplicate or reads a page more than 100 a page needs", () => {
    const row = good();
    row.runs[3] = { ...row.runs[3]!, issuesOpened: 1, openNotices: 251 };
    expect(met(noticeTargets(row))[3]).toBe(false);
    row.runs[3] = { ...good().runs[3]!, noticedShares: 249 };
    expect(met(noticeTargets(row))[3]).toBe(false);
    row.runs[3] = { ...good().runs[3]!, listingPages: 4, requests: 504 };
    expect(met(noticeTargets(row))[4]).toBe(false);
  });

  it("misses the first applying run's targets when a notice is opened twice or the run sends more than its notices need", () => {
    const row = good();
    row.runs[2] = { ...row.runs[2]!, issuesOpened: 251, openNotices: 251 };
    expect(met(noticeTargets(row))[1]).toBe(false);
    row.runs[2] = { ...good().runs[2]!, requests: 761 };
    expect(met(noticeTargets(row))[2]).toBe(false);
    row.runs[2] = { ...good().runs[2]!, closedPages: 2, requests: 761 };
    expect(met(noticeTargets(row))[2]).toBe(false);
  });

  it("claims nothing met when a run is missing", () => {
    expect(met(noticeTargets({ ...good(), runs: good().runs.slice(0, 3) }))).toEqual([false]);
  });

  it("runs a policy Warden accepts, under notify with a grace and the notices project", () => {
    const policy = parsePolicy(NOTIFY_POLICY, "notify.yaml");
    expect(JSON.stringify(policy)).toContain("security/access-notices");
    expect(NOTIFY_POLICY).toMatch(/onStray: notify\n\s+grace: 7d/);
  });

  it("has a table as wide as its header", () => {
    const markdown = benchMarkdown(settings, info, [{ kind: noticesRows, rows: [good()] }] as Section[]);
    const block = markdown.split("\n\n").find((b) => b.startsWith("| "))!;
    expect(new Set(block.split("\n").map((line) => line.split(/(?<!\\)\|/).length)).size).toBe(1);
    expect(markdown).toContain("| 9,750 | 250 | notify apply again | 1000 ms | 503 | 3 | 3 | 0 | 0 | 0 | 250 (250) | 0 / 0 / 250 |  |");
  });
});

describe("the durable rows' checkpoints", () => {
  const row = (projects: number, bytes: number) => ({ projects, executions: [{ largestStepBytes: bytes / 2, largestStep: "a" }, { largestStepBytes: bytes, largestStep: "b" }] });

  it("stay within Lambda's 256 KB for one operation", () => {
    expect(met(checkpointTargets([row(300_000, CHECKPOINT_LIMIT)]))).toEqual([true]);
    expect(met(checkpointTargets([row(300_000, CHECKPOINT_LIMIT + 1)]))).toEqual([false]);
  });

  it("do not grow with the number of projects, whichever row comes first", () => {
    expect(met(checkpointTargets([row(300_000, 100_000), row(1_000_000, 125_000)]))).toEqual([true, true]);
    expect(met(checkpointTargets([row(1_000_000, 126_000), row(300_000, 100_000)]))).toEqual([true, false]);
  });

  it("name the step whose checkpoint is the largest", () => {
    expect(largestCheckpointCell(row(300_000, 2048))).toBe("2.0 KB (b)");
    expect(largestCheckpointCell({ projects: 1, executions: [] })).toBe("—");
  });

  it("claim nothing for a row whose executions all failed", () => {
    expect(checkpointTargets([{ projects: 1_000_000, executions: [] }])).toEqual([]);
  });
});

it("--durable-projects is opt-in: the default run keeps its one durable row", () => {
  expect(parseSettings([]).durableProjects).toBe(0);
  expect(parseSettings(["--durable-projects", "1000000"]).durableProjects).toBe(1_000_000);
});
