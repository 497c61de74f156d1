/** Reads the policy file for the front ends (lib/policy itself stays pure). */
import { readFile } from "node:fs/promises";
import { PolicyError, parsePolicy, type Policy } from "../policy/index.ts";

export const DEFAULT_POLICY_FILE = "warden.yaml";

export async function loadPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : (err as Error).message;
    throw new PolicyError(path, [{ path: "", message: reason }]);
  }
  return parsePolicy(text, path);
}
