/**
 * --audit-log's file, opened for append. Its lines name every share a run changed, private ones too, so it
 * is kept as the plan is (lib/jobs/atomic-file.ts): readable by its owner alone. A name in a shared
 * directory (/tmp, a runner's work directory) may be another account's, made first: a file it owns and
 * reads, or a link (symbolic, or hard where fs.protected_hardlinks is 0) to a file of the user's own, which
 * the lines would be appended to. Such a file is refused before any request, never written into.
 * On Windows, which has no O_NOFOLLOW, and whose files' access is by ACL, not the owner and mode Node
 * shows, the file is opened as named (a link followed) and not checked.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { UsageError } from "./command.ts";

// O_NONBLOCK: a named pipe nothing reads would hold a blocking open for ever (ENXIO instead); no effect on a file.
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** `path`'s file descriptor, for append (created 0600 where absent); a UsageError names the cause and the fix. */
export function openAuditLog(path: string): number {
  // Many tools read "-" as standard output; opened as named, it made a file called "-" in the working directory.
  if (path === "-") throw new UsageError("--audit-log takes a file to append to; - is not one (standard output carries the report): name a file, such as --audit-log audit.jsonl");
  const named = `--audit-log ${path}`;
  let fd: number;
  try {
    fd = openSync(path, APPEND, 0o600);
  } catch (err) {
    if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
      throw new UsageError(`${named} is a symbolic link, which Warden does not follow (another account may have made it, to a file of yours): name the file itself`);
    }
    if ((err as NodeJS.ErrnoException).code === "ENXIO") throw new UsageError(`${named} is a named pipe that nothing reads (another account may have made it): name a file of your own`);
    throw new UsageError(`${named}: cannot open it for append (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const problem = process.getuid === undefined ? undefined : unsafe(fstatSync(fd), process.getuid());
  if (problem === undefined) return fd;
  closeSync(fd);
  throw new UsageError(`${named} ${problem}`);
}

/** Why the file opened must not take the audit lines, or undefined. */
function unsafe(file: Stats, uid: number): string | undefined {
  // A device only root can make (/dev/null, /dev/full) keeps nothing for anyone to read back.
  if (file.isCharacterDevice() && file.uid === 0) return undefined;
  if (!file.isFile()) return "is not a file (a named pipe, a socket or a device, whose lines another process would read): name a file of your own";
  if (file.uid !== uid) return `belongs to another account (uid ${file.uid}), which could read every line: name a file of your own, in a directory others cannot write to`;
  if ((file.mode & 0o077) !== 0) {
    return `may be read or written by others (mode ${(file.mode & 0o777).toString(8).padStart(4, "0")}), and its lines name every share changed: chmod 600 it, or name a new file`;
  }
  if (file.nlink > 1) return `has ${file.nlink} names (hard links): another account may have linked a file of yours there: name a new file`;
  return undefined;
}
