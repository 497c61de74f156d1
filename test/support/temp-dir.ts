/**
 * Runs around every test file (vitest setupFiles): points the temporary directory (`os.tmpdir()`, read
 * from TMPDIR at each call, and inherited by the processes a test starts with this environment) at one
 * of the file's own, removed when the file ends. Tests write policies, plans, audit logs and bundles
 * there; without this each `npm test` left about 150 directories in the machine's /tmp.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const machine = process.env.TMPDIR;
const dir = mkdtempSync(join(tmpdir(), "warden-test-"));
process.env.TMPDIR = dir;

// The worker may run another file next: give it back the machine's directory to make its own in.
afterAll(() => {
  if (machine === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = machine;
  rmSync(dir, { recursive: true, force: true });
});
