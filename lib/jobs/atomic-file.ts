/**
 * A file written whole or not at all: the text goes to a new file of a random name beside it (opened
 * exclusively, so a symlink or file planted at a name one could guess is never followed or overwritten),
 * made durable, then renamed over the path. A process killed mid-write leaves the previous file.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Throws the file system's error (its `code` says why); the temporary file is removed. */
export function writeFileAtomically(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
