/**
 * --format text|markdown|json (--json its synonym) on the commands that print a report: checked before
 * any request, Markdown as a merge request comment takes it, text wrapped to a terminal's width only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../bin/cli/main.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile } from "../support/cli.ts";
import { standardPolicy } from "../support/policies.ts";
import { reportJson } from "../support/report.ts";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 200, seed: 5, groupShares: true }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(standardPolicy()) };
});
afterAll(() => sim.close());

async function run(args: string[], stdout: { isTTY?: boolean; columns?: number } = {}) {
  let out = "";
  let err = "";
  const code = await main(args, { stdout: { write: (t: string) => (out += t), ...stdout }, stderr: { write: (t: string) => (err += t) }, env: { ...env, NO_COLOR: "1" } });
  return { code, stdout: out, stderr: err };
}

describe("--format", () => {
  it.each([
    [["enforce", "--format", "xml"], '--format takes text, markdown, json; got "xml"'],
    [["enforce", "--json", "--format", "markdown"], "--json is --format json: it cannot go with --format markdown"],
    [["policy", "check", "--format", "markdown"], '--format takes text, json; got "markdown"'],
    [["restore", "removed.json", "--format", "html"], '--format takes text, markdown, json; got "html"'],
    // A review's finding: --json alone was let through where --format json is refused, and the command ran on.
    [["exempt", "--project", "acme/x", "--reason", "r", "--policy-project", "7", "--json"], "--json is --format json: --format takes text here"],
  ])("refuses %j before any request", async (args, problem) => {
    const before = sim.counters.requests;
    const result = await run(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(problem);
    expect(result.stdout).toBe("");
    expect(sim.counters.requests).toBe(before);
  });

  it("json and --json print the same report, which fits the schema", async () => {
    const [json, format] = await Promise.all([run(["enforce", "--json"]), run(["enforce", "--format", "json"])]);
    expect(json.code).toBe(2);
    const a = reportJson(json.stdout);
    const b = reportJson(format.stdout);
    expect({ ...a, startedAt: 0, finishedAt: 0, stats: 0 }).toEqual({ ...b, startedAt: 0, finishedAt: 0, stats: 0 });
    expect(a).toMatchObject({ schemaVersion: 1, job: "enforce", gitlabUrl: sim.url, policy: { source: "file", path: env["WARDEN_POLICY"] } });
  });

  it("markdown: the closing line, the per-group table and every action in a collapsed <details>", async () => {
    const { code, stdout } = await run(["enforce", "--format", "markdown"]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^### Warden enforce \\\(dry run\\\)\\: \d+ stray shares\n\n\*\*Plan\\: \d+ shares to remove/);
    expect(stdout).toContain("| Stray shares by invited group | Shares |\n| --- | ---: |\n");
    expect(stdout).toMatch(/<details><summary>All \d+ stray shares<\/summary>\n\n\| Project or group \| Status \|/);
    expect(stdout.trimEnd().endsWith("</details>")).toBe(true);
  });

  it("text wraps to the terminal's width, and not off a terminal", async () => {
    const tty = await run(["enforce"], { isTTY: true, columns: 70 });
    const piped = await run(["enforce"], { columns: 70 });
    expect(tty.stdout.split("\n").every((l) => l.length <= 70)).toBe(true);
    expect(piped.stdout.split("\n").some((l) => l.length > 70)).toBe(true);
    expect(piped.stdout).toMatch(/\n\nPlan: \d+ shares to remove \(\d+ project, \d+ group\)\. Apply with: warden enforce --apply/);
  });

  // The package review (third pass): a terminal that takes no escape sequences (TERM=dumb: Emacs' shell, some IDE
  // consoles, CI ptys) is still a TTY, and showed the colours and the redrawn progress line as text.
  it("on a TERM=dumb terminal, no escape sequence reaches stdout or stderr", async () => {
    let [out, err] = ["", ""];
    const code = await main(["enforce"], { stdout: { write: (t: string) => (out += t), isTTY: true, columns: 120 }, stderr: { write: (t: string) => (err += t), isTTY: true }, env: { ...env, TERM: "dumb" } });
    expect(code).toBe(2);
    expect(out).toMatch(/Plan: \d+ shares to remove/);
    expect(out.match(/\x1b\[[0-9;]*[A-Za-z]/g) ?? []).toEqual([]);
    expect(err.match(/\x1b\[[0-9;]*[A-Za-z]/g) ?? []).toEqual([]);
    // The same run on a terminal that takes them is coloured: the check can fail.
    let coloured = "";
    await main(["enforce"], { stdout: { write: (t: string) => (coloured += t), isTTY: true, columns: 120 }, stderr: { write: () => true, isTTY: true }, env: { ...env, TERM: "xterm-256color" } });
    expect(coloured).toMatch(/\x1b\[/);
  });
});
