/**
 * --audit-log at a name someone made first. The plan is written by rename (lib/jobs/atomic-file.ts): a file
 * planted at its path is replaced, never written into. The audit log was opened with openSync(path, "a"),
 * following a symlink and appending to a file whoever owned it, whatever its mode (the package13 review):
 * on a shared host or shell runner (a path in /tmp, a shared work directory) another account that made the
 * name first read every removal, private projects and groups included, or had the lines appended to any
 * file the operator could write. Now such a file is refused, naming the cause and the fix, before any request.
 * (Windows has no O_NOFOLLOW and no owner or mode Node can check: bin/cli/audit-log-file.ts.)
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden, wardenWithin } from "../support/cli.ts";
import { EVERYTHING_STRAY } from "../support/policies.ts";

let sim: GitLabSim;
let env: Record<string, string>;
let dir: string;
beforeEach(async () => {
  sim = await startGitLabSim({ dataset: generateOrganisation({ projects: 30, seed: 7 }).dataset });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: sim.token, WARDEN_POLICY: policyFile(EVERYTHING_STRAY) };
  dir = mkdtempSync(join(tmpdir(), "warden-audit-planted-"));
});
afterEach(() => sim.close());

const deletes = () => Object.entries(sim.counters.byRoute).filter(([route]) => route.startsWith("DELETE ")).reduce((n, [, c]) => n + c, 0);

/** Runs an applying enforce into `log` and checks it was refused before any request, `log` left as it was. */
async function refused(log: string, cause: RegExp): Promise<void> {
  const before = readFileSync(log, "utf8");
  const result = await warden(["enforce", "--apply", "--audit-log", log], env);
  expect(deletes()).toBe(0);
  expect(sim.counters.requests).toBe(0);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/--audit-log/);
  expect(result.stderr).toMatch(cause);
  expect(readFileSync(log, "utf8")).toBe(before);
}

describe.skipIf(process.platform === "win32")("--audit-log at a name someone made first", () => {
  it("a file of one's own that others may read (0644: an older Warden's, or a shell's default) is refused, naming chmod 600; once 600 it is appended to", async () => {
    const log = join(dir, "audit.jsonl");
    writeFileSync(log, "");
    chmodSync(log, 0o644);
    await refused(log, /may be read or written by others \(mode 0644\).*chmod 600 it/);
    chmodSync(log, 0o600);
    const run = await warden(["enforce", "--apply", "--audit-log", log], env);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(log, "utf8")).toMatch(/"project":"acme\//);
  });

  it("a symbolic link is not followed: refused, the file it names untouched", async () => {
    const target = join(dir, "authorized_keys");
    writeFileSync(target, "ssh-ed25519 AAAA me\n", { mode: 0o600 });
    const log = join(dir, "audit.jsonl");
    symlinkSync(target, log);
    await refused(log, /is a symbolic link, which Warden does not follow.*name the file itself/);
  });

  it("a hard link to a file of one's own is refused", async () => {
    const target = join(dir, "authorized_keys");
    writeFileSync(target, "ssh-ed25519 AAAA me\n", { mode: 0o600 });
    const log = join(dir, "audit.jsonl");
    linkSync(target, log);
    await refused(log, /has 2 names \(hard links\).*name a new file/);
  });

  // Only root can give a file to another account (nobody), as another account making the name first would.
  it.runIf(process.getuid?.() === 0)("another account's file, readable by all, in a shared directory (sticky, world-writable, as /tmp is) is refused before any change", async () => {
    const shared = join(dir, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const log = join(shared, "warden-audit.jsonl");
    writeFileSync(log, "");
    chmodSync(log, 0o666);
    chownSync(log, 65534, 65534);
    await refused(log, /belongs to another account \(uid 65534\).*name a file of your own/);
  });

  // A named pipe: a blocking open waits for a reader for ever (the review today11), synchronously, so no
  // deadline or signal handler ran. Any account may make one in a shared directory (fs.protected_fifos is 0
  // by default); one of the user's own, nothing reading it, is the same open.
  it("a named pipe nothing reads is refused at once, not waited on for ever", async () => {
    const log = join(dir, "warden-audit.jsonl");
    execFileSync("mkfifo", ["-m", "0600", log]);
    const done = await wardenWithin(["enforce", "--apply", "--audit-log", log], env, 8_000);
    if (!done) expect.fail("the CLI was still blocked opening the pipe after 8 s");
    expect(sim.counters.requests).toBe(0);
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/--audit-log \S+ is a named pipe that nothing reads .*name a file of your own/);
  });
});
