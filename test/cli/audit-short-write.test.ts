/**
 * A hostile review's finding (package14, bin/cli/io.ts auditTrail): a disk that fills up mid-apply does
 * not first refuse a write with ENOSPC. The write that reaches the end of the space writes part of its
 * line and returns how much (write(2)'s short count; a file size limit, `ulimit -f`, does the same before
 * EFBIG); only the next write fails. fs.writeSync returns that count, which auditTrail ignored: the line
 * was taken as kept, so on a terminal (which shows a count, not the lines) that change's line was
 * nowhere whole, and the run went on to one more change. Now a line is written whole or its failure
 * handled as any other: the line goes to stderr and no new change is started.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../../bin/build-cli.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset, latencyMs: 5 });
  env = { PATH: process.env["PATH"] ?? "", TERM: "xterm", GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
});
afterEach(() => sim.close());

const removed = () => Object.entries(sim.counters.byRoute).reduce((n, [route, count]) => n + (route.startsWith("DELETE ") ? count : 0), 0);
const jsonLines = (text: string) =>
  text.split(/\r?\n/).flatMap((line) => {
    const at = line.indexOf('{"level"');
    try {
      return at < 0 ? [] : [JSON.parse(line.slice(at)) as { message: string }];
    } catch {
      return [];
    }
  });

describe.runIf(existsSync("/usr/bin/script"))("--audit-log whose file cannot take a whole line (a full disk, a size limit)", () => {
  it("on a terminal: every share GitLab removed has its whole line, in the file or on stderr; exit 1", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "warden-")), "audit.jsonl");
    // A pseudo-terminal (script), and a file size limit of 3 KiB: some four lines, then a short write.
    const command = `ulimit -f 3; exec '${process.execPath}' '${BUILT_CLI}' enforce --apply --concurrency 1 --audit-log '${log}'`;
    const child = spawn("script", ["-qec", command, "/dev/null"], { env });
    let screen = "";
    child.stdout.on("data", (chunk: Buffer) => (screen += chunk));
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    const kept = jsonLines(readFileSync(log, "utf8"));
    const shown = jsonLines(screen);
    expect(kept.length, screen).toBeGreaterThan(0);
    expect(removed()).toBeGreaterThan(0);
    // A share removed and its group read again make two lines (the second a confirmation); each removal has one at least.
    const removals = [...kept, ...shown].filter((l) => !("confirmation" in l));
    expect(removals.length, screen).toBeGreaterThanOrEqual(removed());
    expect(screen).toMatch(/--audit-log .*: writing failed \(EFBIG\): starting no new change/);
    expect(code).toBe(1);
  }, 60_000);
});
