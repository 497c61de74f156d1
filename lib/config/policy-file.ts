/** Reads the policy file for the front ends (lib/policy itself stays pure). */
import { existsSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { formatBytes, MAX_POLICY_BYTES, PolicyError, parsePolicy, type Policy } from "../policy/index.ts";

export const DEFAULT_POLICY_FILE = "warden.yaml";

/** Where to start a policy from, for the error when there is none. */
export const EXAMPLE_POLICY = "examples/warden.yaml in Warden's repository";

/**
 * The example policy beside the code, where there is one: an installed package carries it beside dist/,
 * as a checkout does beside lib/; a function's bundle has none, and the repository's is named instead.
 */
function examplePolicy(): string {
  for (const up of ["../examples/warden.yaml", "../../examples/warden.yaml"]) {
    const file = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(file)) return file;
  }
  return EXAMPLE_POLICY;
}

/** How the CLI names its policy; the Lambda functions pass their own words (functions/shared/config/settings.ts). */
const cliPolicyNaming = () => `name the policy with --policy FILE or WARDEN_POLICY=FILE (${examplePolicy()} is one to start from)`;

/** `naming`: how to name another file, for the error when there is none at `path`. */
export async function loadPolicyFile(path: string, naming?: string): Promise<Policy> {
  return parsePolicy(await readPolicyText(path, naming ?? cliPolicyNaming()), path);
}

/** Problems with the file itself name it by its absolute path: a relative one says nothing of where it was looked for. */
async function readPolicyText(path: string, naming: string): Promise<string> {
  const absolute = resolve(path);
  const refuse = (message: string) => new PolicyError(absolute, [{ path: "", message }]);
  const directory = () => refuse(`is a directory, not a policy file: name the file itself (such as ${join(absolute, DEFAULT_POLICY_FILE)})`);
  let file;
  try {
    file = await open(path, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw refuse(`no such file: ${naming}`);
    if (code === "EISDIR") throw directory();
    // Node's own message repeats the path; the code says the rest.
    throw refuse(code === "EACCES" ? "cannot be read (permission denied)" : `cannot be read (${code ?? (err as Error).message})`);
  }
  const limit = `more than a policy's limit of ${formatBytes(MAX_POLICY_BYTES)}: is it the right file?`;
  try {
    const stat = await file.stat();
    if (stat.isDirectory()) throw directory();
    const { size } = stat;
    if (size > MAX_POLICY_BYTES) throw refuse(`the file is ${formatBytes(size)}, ${limit}`);
    // A pipe (--policy <(envsubst < t.yaml)) or a device has no size: read one byte past the limit at most.
    const bytes = await readAtMost(file, MAX_POLICY_BYTES + 1);
    if (bytes.length > MAX_POLICY_BYTES) throw refuse(`the file holds ${limit}`);
    const encoding = notUtf8(bytes);
    if (encoding) throw refuse(encoding);
    // Strictly, as the repository's reader does (policy-source.ts): a byte read as U+FFFD would pass a check
    // here of a file the functions refuse, and the policy's SHA-256 would not be the file's. The BOM is kept.
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw refuse("is not UTF-8 text (Windows-1252 or Latin-1?): save it as UTF-8");
    }
  } finally {
    await file.close();
  }
}

/**
 * Why `bytes` (a file's start) cannot be UTF-8 text, or undefined. Windows' Notepad ("Unicode") and
 * PowerShell 5's `>` (the CLI's own output redirected: a report, a plan) write UTF-16, which read as
 * UTF-8 is neither YAML nor JSON, and would be refused for a cause it does not have.
 */
export function notUtf8(bytes: Uint8Array): string | undefined {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff) || bytes.subarray(0, 64).includes(0)) {
    return "is UTF-16 (or holds NUL bytes), not UTF-8: save it as UTF-8 (in PowerShell, Out-File -Encoding utf8)";
  }
  return undefined;
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
