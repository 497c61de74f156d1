/** Runs the real CLI as a child process (the same Node as the tests: Node 24). */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const WARDEN = new URL("../../bin/warden.ts", import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function warden(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [WARDEN, ...args], { env: { PATH: process.env["PATH"] ?? "", ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

export function policyFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "warden-")), "warden.yaml");
  writeFileSync(path, text);
  return path;
}
