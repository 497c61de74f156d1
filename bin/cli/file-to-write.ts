/**
 * A file a command writes only after its requests (enforce --out's plan, watch --state's cursor), checked
 * before any: a run must not examine a whole scope, or poll ten times, and then fail to record what it did.
 * `dirname` is "." for "" and for "plans/" alike, so a check of the directory alone passes both.
 */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { UsageError } from "./command.ts";

/** Refuses, naming `flag` and the fix, a path no file can be written at; `example` is a file name to suggest. */
export function fileToWrite(flag: string, path: string, example: string): void {
  if (path.trim() === "") throw new UsageError(`${flag} is empty: name the file to write (e.g. ${flag} ${example})`);
  // "-" reads as standard output to most tools; a file of that name, written beside the report, would surprise.
  if (path === "-") throw new UsageError(`${flag} - : ${flag} writes a file, not standard output (the report goes there): name the file to write (e.g. ${flag} ${example})`);
  const named = `${flag} ${path}`;
  if (path.endsWith("/") || path.endsWith(sep) || statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`${named} is a directory: name the file to write in it (e.g. ${join(path, example)})`);
  }
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new UsageError(`${named}: its directory ${dir} cannot take the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): create it, or name a file in one that can`);
  }
}
