/** Reads the policy file for the front ends (lib/policy itself stays pure). */
import { open, type FileHandle } from "node:fs/promises";
import { PolicyError, parsePolicy, type Policy } from "../policy/index.ts";

export const DEFAULT_POLICY_FILE = "warden.yaml";

/**
 * A policy is a few kilobytes; anything far larger is the wrong file (`--policy dump.sql`), which
 * would only be parsed to be refused. Refused by its size, before it is read.
 */
export const MAX_POLICY_BYTES = 1024 * 1024;

export async function loadPolicyFile(path: string): Promise<Policy> {
  return parsePolicy(await readPolicyText(path), path);
}

async function readPolicyText(path: string): Promise<string> {
  const refuse = (message: string) => new PolicyError(path, [{ path: "", message }]);
  let file;
  try {
    file = await open(path, "r");
  } catch (err) {
    throw refuse((err as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : (err as Error).message);
  }
  const limit = `more than a policy's limit of ${formatBytes(MAX_POLICY_BYTES)}: is it the right file?`;
  try {
    const { size } = await file.stat();
    if (size > MAX_POLICY_BYTES) throw refuse(`the file is ${formatBytes(size)}, ${limit}`);
    // A pipe (--policy <(envsubst < t.yaml)) or a device has no size: read one byte past the limit at most.
    const bytes = await readAtMost(file, MAX_POLICY_BYTES + 1);
    if (bytes.length > MAX_POLICY_BYTES) throw refuse(`the file holds ${limit}`);
    return bytes.toString("utf8");
  } finally {
    await file.close();
  }
}

async function readAtMost(file: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let length = 0;
  while (length < limit) {
    const { bytesRead } = await file.read(buffer, length, limit - length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}

function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
