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
      writeWhole(fd, text);
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

/**
 * All of `text`, or the error of the write that failed: a disk that fills up (or a file size limit) takes
 * part of a write and says how much (a short write); only the next write fails.
 */
export function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
}
