/** Runs a module's text in a Node process of the functions' heap settings (lib/config/node-options.ts), where running out of memory shows. */
import { spawn } from "node:child_process";
import { NODE_OPTIONS } from "../../lib/config/node-options.ts";

/** What `script` (an ES module's text) printed on stdout, and how its process ended. */
export function inSmallHeap(script: string): Promise<{ out: string; code: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_OPTIONS.split(" "), "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c));
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ out, code, signal }));
  });
}
