/**
 * The access review (`warden report shares`, lib/jobs/review/) under onStray notify: each stray share
 * the policy notifies of shows its notice as the notices project holds it (the issue, its due date as
 * a person left it, days left) or that none is open yet; a stray under onStray remove shows none, even
 * with a notice still open. The review opens nothing (only GETs), and a notice URL or due date the
 * server sends stays inert in CSV (no formula), Markdown and text.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce } from "../../../lib/jobs/index.ts";
import { markedKey } from "../../../lib/jobs/notices/marker.ts";
import { reviewChunks } from "../../../lib/jobs/render/index.ts";
import { reviewShares } from "../../../lib/jobs/review/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { startGitLabSim, type GitLabDataset, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { notifyPolicy } from "../../support/policies.ts";
import { parseCsv } from "../../support/csv.ts";
import { validated } from "../../support/report.ts";

let sim: GitLabSim;
afterEach(() => sim?.close());

const DAY = 86_400_000;
const NOTICES = 200;
const HOSTILE_URL = '=HYPERLINK("http://evil.example","open me")';
const group = (id: number, path: string, parent_id: number | null = null) =>
  ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, full_path: path, parent_id, visibility: "internal" as const, shared_with_groups: [], owners: ["jane"] });
const project = (id: number, path: string, namespace_id: number) =>
  ({ id, name: path.split("/").at(-1)!, path: path.split("/").at(-1)!, path_with_namespace: path, namespace_id, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });

function world(): GitLabDataset {
  return {
    groups: [group(10, "acme"), group(11, "acme/legacy", 10), group(20, "partners"), group(30, "vendors"), group(40, "security")],
    users: [{ id: 5, username: "jane", name: "Jane Doe", namespace_id: 105 }],
    projects: [project(100, "acme/app", 10), project(101, "acme/legacy/old", 11), project(NOTICES, "security/access-notices", 40)],
  };
}

const policy = (override = "") => notifyPolicy({ scope: override });
/** acme/legacy moves to remove first: its strays go at once, whatever notice is still open for them. */
const LEGACY_REMOVES = ", overrides: [{ group: acme/legacy, onStray: remove }]";

const T0 = new Date("2026-11-29T09:00:00Z");
const later = (days: number) => new Date(T0.getTime() + days * DAY);

async function share(path: string, groupId: number): Promise<void> {
  const res = await fetch(`${sim.url}/api/v4${path}`, { method: "POST", headers: { "private-token": "root", "content-type": "application/json" }, body: JSON.stringify({ group_id: groupId, group_access: 30 }) });
  expect(res.status).toBe(201);
}

const client = () => new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
const issueOf = (key: string) => sim.work.issuesOf(NOTICES).find((i) => markedKey(i.description) === key)!;
const text = (chunks: Iterable<string>) => [...chunks].join("");

describe("the access review under onStray notify", () => {
  it("shows each stray's notice (issue, due date as it stands, days left) or that none is open yet; only under notify; sends only GETs; server text inert in CSV, Markdown and text", async () => {
    sim = await startGitLabSim({ dataset: world(), tokens: { root: { admin: true } }, recordRequests: true });
    for (const path of ["/projects/100/share", "/groups/10/share", "/projects/101/share"]) await share(path, 20);
    // An applying run opens a notice for each of the three strays.
    const opened = await enforce({ gitlab: client(), policy: parsePolicy(policy(), "warden.yaml"), apply: true, now: T0 });
    expect(opened.actions.map((a) => a.status)).toEqual(["noticed", "noticed", "noticed"]);
    // Then: a share no notice covers yet, a due date a person moved into the past, and a URL the server chose.
    await share("/projects/100/share", 30);
    issueOf("group:10:group:20").due_date = "2026-11-30";
    const project = issueOf("project:100:group:20");
    project.web_url = HOSTILE_URL;

    sim.requests.length = 0;
    const report = await validated(reviewShares({ gitlab: client(), policy: parsePolicy(policy(LEGACY_REMOVES), "warden.yaml"), now: later(3) }));
    expect(sim.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(sim.work.issuesOf(NOTICES).filter((i) => i.state === "opened")).toHaveLength(3);

    const rows = report.actions.map((a) => [a.kind, a.kind === "project" ? a.project : a.sharedGroup, a.group, a.status, a.notice]);
    expect(rows).toEqual([
      // The address the server chose is no issue's on GitLab's origin: the one Warden builds in its place (lib/jobs/notices/issue-url.ts).
      ["project", "acme/app", "partners", "stray", { iid: project.iid, url: `${sim.url}/security/access-notices/-/issues/${project.iid}`, dueDate: "2026-12-07", daysLeft: 5 }],
      // None open yet: the due date one opened now would get (Dec 2 09:00 + 7d, to the next UTC day).
      ["project", "acme/app", "vendors", "stray", { dueDate: "2026-12-10", daysLeft: 8 }],
      // Its notice is still open, but the policy now removes it at once: the notice says nothing of its fate.
      ["project", "acme/legacy/old", "partners", "stray", undefined],
      ["group", "acme", "partners", "stray", { iid: issueOf("group:10:group:20").iid, url: issueOf("group:10:group:20").web_url, dueDate: "2026-11-30", daysLeft: -2 }],
    ]);

    const [header, ...cells] = parseCsv(text(reviewChunks(report, "csv")));
    expect(header!.slice(-5)).toEqual(["notice", "notice_iid", "notice_url", "notice_due_date", "notice_days_left"]);
    expect(cells.map((r) => r.slice(-5))).toEqual([
      ["open", String(project.iid), `${sim.url}/security/access-notices/-/issues/${project.iid}`, "2026-12-07", "5"],
      ["none open yet", "", "", "2026-12-10", "8"],
      ["", "", "", "", ""],
      ["open", String(issueOf("group:10:group:20").iid), issueOf("group:10:group:20").web_url, "2026-11-30", "-2"],
    ]);
    // No text cell a spreadsheet would run (a negative number of days left is a number, not a formula).
    for (const cell of cells.flatMap((r) => r.slice(0, -1))) expect(cell).not.toMatch(/^[=+\-@\t\r]/);

    const markdown = text(reviewChunks(report, "markdown"));
    expect(markdown).not.toContain("HYPERLINK");
    expect(markdown).not.toContain("evil");
    expect(markdown).toContain("4 stray \\(2 with a notice open\\, 1 with none open yet\\)");
    const plain = text(reviewChunks(report, "text"));
    expect(plain).toContain(`notice #${project.iid}, due 2026-12-07, 5 days left`);
    expect(plain).toContain("no notice open yet (the next applying run opens one, due 2026-12-10)");
    expect(plain).toContain("due 2026-11-30: the next applying run removes the share");
  });
});
