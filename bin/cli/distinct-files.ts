/**
 * The files one command reads and writes, told apart before any request: a plan written over the policy
 * it was made by, audit lines appended to the policy or to the plan being applied, a watch's state and
 * audit log in one file (the state's write replaces it, the audit lines with it). Two names are one file
 * when they resolve alike, or, where the file exists, when they are one inode (a symlink, a hard link).
 * Standard output and error are told apart from them too where the shell made them files (`> apply.jsonl`):
 * the report, written from the file's start, would overwrite the audit lines appended there, and a plan
 * renamed over it would take the report's place.
 */
import { fstatSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { type CliIO, type NamedFile, type ParsedArgs, UsageError } from "./command.ts";
import { policyChoice } from "./policy-source.ts";

/** Refuses, naming both, two of the policy file, --audit-log and `others` that are one file. */
export function refuseSameFile(args: ParsedArgs, io: CliIO, others: NamedFile[]): void {
  const choice = policyChoice(args, io.env);
  const auditLog = args.values["audit-log"];
  const files: NamedFile[] = [
    ...(choice.kind === "file" ? [{ name: "the policy file", path: choice.path }] : []),
    { name: "--audit-log", path: typeof auditLog === "string" ? auditLog : undefined },
    ...others,
  ];
  const known = files.flatMap((file) => (file.path === undefined || file.path === "" ? [] : [{ ...file, id: identity(file.path) }]));
  for (const [i, a] of known.entries()) {
    const b = [...known.slice(i + 1), ...redirected()].find((other) => other.id === a.id);
    if (b) throw new UsageError(`${a.name} and ${b.name} name one file, ${a.path}: the run would write over what it reads (or what it writes); give each a file of its own`);
  }
}

/** This process's stdout and stderr where they are files (not a terminal, a pipe or /dev/null); one file for both (`> log 2>&1`) is fine. */
function redirected(): { name: string; id: string }[] {
  return ([[1, "standard output"], [2, "standard error"]] as const).flatMap(([fd, name]) => {
    try {
      const stat = fstatSync(fd);
      return stat.isFile() ? [{ name, id: `inode ${stat.dev}:${stat.ino}` }] : [];
    } catch {
      return [];
    }
  });
}

function identity(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? `inode ${stat.dev}:${stat.ino}` : `path ${resolve(path)}`;
}
