/**
 * What `warden restore` reads: the JSON report of an applying enforce run, or the JSON audit lines
 * that run wrote (CLI stderr, or the Enforce Lambda's Powertools log lines). Either becomes the list of
 * shares the run removed (status "done"), with everything needed to re-create each one. Anything
 * else is refused before any request, naming what is wrong; the input's own text is never echoed
 * beyond a short redacted excerpt, as a log file may hold anything.
 */
import { z } from "zod";
import { instanceUrl, SHARE_ACCESS_LEVELS } from "../../gitlab/index.ts";
import { redactOutput, redactThenCut } from "../../redact/index.ts";
import { MAX_PLANNED, REMOVAL_TYPES, SHARE_STATUSES as STATUSES, shareKey, type RemovedShare } from "../shares/plan.ts";
import { count } from "../view.ts";
import { inTimeOrder, linesOf, timeOf } from "./lines.ts";

export class RestoreInputError extends Error {
  override name = "RestoreInputError";
}

/** GitLab's names, as the input gives them: shown in the report (redacted like any text from a file), never sent. */
const name = z.string().min(1).transform(redactOutput);
const id = z.int().positive();
/** Only a level a share can have: one GitLab refuses would fail at its POST, after the shares before it were made. */
const accessLevel = z.int().refine((level) => SHARE_ACCESS_LEVELS.has(level), {
  error: (iss) => `expected one of GitLab's share access levels (${[...SHARE_ACCESS_LEVELS].join(", ")}), got ${JSON.stringify(iss.input)}`,
});

const day = z.iso.date();
/** Written by a Warden that did not record expiry: re-creating such a share would drop its expiry. */
const OLD = "missing: written by a Warden before share expiry was recorded, so the share cannot be re-created as it was";
const required = <T extends z.ZodType>(schema: (error: z.core.$ZodErrorMap) => T) => schema((iss) => (iss.input === undefined ? OLD : undefined));

/**
 * Fields a removal of either kind carries. A report keeps `"expiresAt": null`; an audit line may
 * not, as Powertools Logger drops null fields from its lines: there, `kind` (written by every Warden
 * that records expiry) must be present, and a missing expiry or custom role is none.
 */
const fields = (form: "report" | "line") => ({
  groupId: id, group: name, accessLevel, memberRoleId: id.nullish(),
  expiresAt: form === "report" ? required((error) => z.iso.date({ error }).nullable()) : day.nullish().transform((d) => d ?? null),
});
const kind = <K extends "project" | "group">(k: K, form: "report" | "line") => (form === "report" ? z.literal(k).optional() : required((error) => z.literal(k, { error })));
const project = (form: "report" | "line") => ({ kind: kind("project", form), projectId: id, project: name, ...fields(form) });
const group = (form: "report" | "line") => ({ kind: kind("group", form), sharedGroupId: id, sharedGroup: name, ...fields(form) });

const ReportAction = z.discriminatedUnion("type", [
  z.object({ type: z.literal(REMOVAL_TYPES.project), ...project("report"), status: z.enum(STATUSES) }),
  z.object({ type: z.literal(REMOVAL_TYPES.group), ...group("report"), status: z.enum(STATUSES) }),
]);
/** An apply report (warden apply --json) has enforce's shape; `gitlabUrl` is the GitLab it ran on (lib/gitlab's instanceUrl). */
const EnforceReport = z.object({ job: z.enum(["enforce", "apply"]), dryRun: z.literal(false), gitlabUrl: z.url().optional(), actions: z.array(ReportAction) });
/** Audit lines are told apart by their message; Powertools' own fields (level, timestamp, function_name, …) are ignored. */
/**
 * A removal's line is written as its DELETE is answered; a kind GitLab may answer with success without
 * removing (a group share) gets a second line, `confirmation: true`, once its subject is read again:
 * its outcome is the last word on that removal ("failed": GitLab kept the share, nothing to restore).
 */
const confirmation = z.literal(true).optional();
/** The GitLab a line was written on (lines an earlier Warden wrote do not say). */
const gitlabUrl = z.url({ protocol: /^https?$/ }).optional();
const AuditLine = z.discriminatedUnion("message", [
  z.object({ message: z.literal(REMOVAL_TYPES.project), ...project("line"), outcome: z.enum(STATUSES), confirmation, gitlabUrl }),
  z.object({ message: z.literal(REMOVAL_TYPES.group), ...group("line"), outcome: z.enum(STATUSES), confirmation, gitlabUrl }),
]);
const AUDIT_MESSAGES = new Set<unknown>(Object.values(REMOVAL_TYPES));

export interface RestoreInput {
  /** Where the removals came from, for the report: "an enforce report" or "N audit lines". */
  source: string;
  /** The removals with status "done", each share once (the last removal of it read). */
  removals: RemovedShare[];
  /** What the input says but restore does not act on, said as warnings. */
  notes: string[];
  /** The origin of the GitLab a report or the audit lines were made on (lines an earlier Warden wrote do not say): its ids mean something there only. */
  madeOn?: string;
}

/**
 * Whether a restore input names a stored run rather than being one: `s3://bucket/key`, a report the
 * run-history bucket keeps (restore/run-history.ts checks the name), "latest" or
 * "latest:<trigger>". This module reads no store: whoever can reach the bucket reads the run and
 * parses its text here.
 */
export function isStoredRun(value: unknown): value is string {
  return typeof value === "string" && (value === "latest" || value.startsWith("latest:") || value.startsWith("s3://"));
}

/** parseRestoreText for a text read from `where` (a file, a stored run), which its errors and its source name. */
export function parseRestoreTextFrom(where: string, text: string): RestoreInput {
  try {
    const input = parseRestoreText(text);
    return { ...input, source: `${where}: ${input.source}` };
  } catch (err) {
    throw err instanceof RestoreInputError ? new RestoreInputError(`${where}: ${err.message}`, { cause: err }) : err;
  }
}

/** The Lambda's `restore` field: a report, `{ lines: [...] }` (strings or parsed objects), or the lines as one string. */
export function restoreInputFrom(value: unknown): RestoreInput {
  if (typeof value === "string") return parseRestoreText(value);
  if (isRecord(value) && "lines" in value) {
    const lines = z.strictObject({ lines: z.array(z.union([z.string(), z.record(z.string(), z.unknown())])) }).safeParse(value);
    if (!lines.success) throw new RestoreInputError(`the restore input's lines: ${issuesText(lines.error)}`);
    return fromAuditLines(lines.data.lines);
  }
  if (isRecord(value) && "job" in value) return fromReport(value);
  throw new RestoreInputError("expected the JSON report of an applying enforce run, { \"lines\": [...] } or a string of audit lines");
}

/** A file's text: a JSON report, or JSON lines (a file with a single audit line is lines too). */
export function parseRestoreText(text: string): RestoreInput {
  const whole = parseJson(text.trim());
  if (isRecord(whole) && "job" in whole) return fromReport(whole);
  if (whole !== undefined && !isRecord(whole)) throw new RestoreInputError(`expected the JSON report of an enforce run or JSON audit lines, got a JSON ${Array.isArray(whole) ? "array" : typeof whole}`);
  return fromAuditLines(linesOf(text));
}

function fromReport(value: Record<string, unknown>): RestoreInput {
  if (value["job"] !== "enforce" && value["job"] !== "apply") {
    throw new RestoreInputError(`this is the report of a ${typeof value["job"] === "string" ? redactThenCut(value["job"], 20) : "(unnamed)"} run: restore reads the report of an enforce or apply run`);
  }
  if (value["dryRun"] === true) throw new RestoreInputError("this is the report of a dry run, which removed nothing: restore reads the report of enforce --apply");
  // Counted before the schema copies each, as a plan's are: 495,000 compact ones (62 MB) filled the heap first.
  const listed = Array.isArray(value["actions"]) ? value["actions"].length : 0;
  if (listed > MAX_PLANNED) throw new RestoreInputError(`an enforce report lists ${listed} actions, more than one enforce run makes (${MAX_PLANNED}): give one run's report or audit lines`);
  const report = EnforceReport.safeParse(value);
  if (!report.success) throw new RestoreInputError(`not a usable enforce report: ${issuesText(report.error)}`);
  const { actions, gitlabUrl } = report.data;
  const input = collect(`an ${report.data.job} report`, actions.map((a) => [a.status, removedShare(a)] as const), []);
  return gitlabUrl === undefined ? input : { ...input, madeOn: instanceUrl(gitlabUrl) };
}

/**
 * Lines with another message (the run's "job finished", a restore's own lines) and lines that are not
 * JSON at all (a log viewer's headers) are skipped; a line that names a removal must be complete and
 * well formed. A JSON object after a prefix is read too: `aws logs tail` prints a timestamp and the
 * stream's name before each line.
 */
function fromAuditLines(lines: Iterable<string | Record<string, unknown>>): RestoreInput {
  const found: Entry[] = [];
  const origins = new Set<string | undefined>();
  let other = 0;
  let read = 0;
  let first: string | undefined;
  for (const line of lines) {
    read++;
    if (typeof line === "string" && line.trim() === "") continue;
    if (typeof line === "string") first ??= line;
    const where = `line ${read}`;
    const value = typeof line === "string" ? jsonLine(line) : line;
    if (!isRecord(value) || !AUDIT_MESSAGES.has(value["message"] as string)) {
      if (typeof line === "string" && !isRecord(value) && /"remove-(group-)?share"/.test(line)) {
        throw new RestoreInputError(`${where} names a removal but is not a complete JSON object: ${JSON.stringify(redactThenCut(line.trim(), 60))}`);
      }
      other++;
      continue;
    }
    const audit = AuditLine.safeParse(value);
    if (!audit.success) throw new RestoreInputError(`${where} (${String(value["message"])}): ${issuesText(audit.error)}`);
    found.push([audit.data.outcome, removedShare(audit.data), audit.data.confirmation, timeOf(value)]);
    origins.add(audit.data.gitlabUrl === undefined ? undefined : instanceUrl(audit.data.gitlabUrl));
  }
  // One GitLab's lines at a time: ids name other projects and groups on another.
  if (origins.size > 1) {
    const named = [...origins].map((o) => o ?? "(none named: written by an earlier Warden)").join(", ");
    throw new RestoreInputError(`the audit lines were written on more than one GitLab (${redactThenCut(named, 200)}): restore each one's lines on its own, against it`);
  }
  const [origin] = origins;
  if (!found.length) {
    const excerpt = first === undefined ? "" : `; it starts ${JSON.stringify(redactThenCut(first.trim(), 40))}`;
    throw new RestoreInputError(`no remove-share or remove-group-share audit line found, and not an enforce report (${read} lines read${excerpt})`);
  }
  const input = collect(count(found.length, "audit line"), inTimeOrder(found, (e) => e[3]), other ? [`${count(other, "line")} of the input ${other === 1 ? "is not a removal audit line" : "are not removal audit lines"}: skipped`] : []);
  return origin === undefined ? input : { ...input, madeOn: origin };
}

function removedShare(a: z.output<typeof ReportAction> | z.output<typeof AuditLine>): RemovedShare {
  const shared = { groupId: a.groupId, group: a.group, accessLevel: a.accessLevel, expiresAt: a.expiresAt, ...(a.memberRoleId == null ? {} : { memberRoleId: a.memberRoleId }) };
  return "projectId" in a
    ? { kind: "project", projectId: a.projectId, project: a.project, ...shared }
    : { kind: "group", sharedGroupId: a.sharedGroupId, sharedGroup: a.sharedGroup, ...shared };
}

const KEPT = "kept by GitLab though it answered success";

/** A removal's status and share, whether its line confirms an earlier one (AuditLine), and when it was written (a line's time). */
type Entry = readonly [status: string, share: RemovedShare, confirmation?: true, at?: number];

/** Keeps the removals done, each share once, and says what else the input held. */
function collect(source: string, entries: readonly Entry[], notes: string[]): RestoreInput {
  const done = new Map<string, RemovedShare>();
  const left = new Map<string, number>();
  let repeated = 0;
  for (const [status, removal, confirmation] of entries) {
    // A confirmation of a removal: "done" repeats its first line (or stands for it, when the input lacks it);
    // any other outcome undoes it, as GitLab kept the share.
    if (confirmation) {
      const key = shareKey(removal);
      if (status === "done") done.set(key, done.get(key) ?? removal);
      else if (done.delete(key)) left.set(KEPT, (left.get(KEPT) ?? 0) + 1);
      continue;
    }
    if (status !== "done") {
      left.set(status, (left.get(status) ?? 0) + 1);
      continue;
    }
    const key = shareKey(removal);
    if (done.has(key)) repeated++;
    // Map order is first insertion; the values are the last removal's, the share as it was last.
    done.set(key, removal);
  }
  if (left.size) {
    const counts = [...left].map(([status, n]) => `${n} ${status}`).join(", ");
    notes.push(`only removals with status "done" are restored; the input also holds ${counts}: not restored`);
  }
  if (repeated) notes.push(`${count(repeated, "removal")} ${repeated === 1 ? "appears" : "appear"} more than once in the input: each share is restored once, as it was last removed`);
  // No enforce run removes more (it stops examining there): an input holding more is the lines of many runs, or made up.
  if (done.size > MAX_PLANNED) throw new RestoreInputError(`${source} holds ${done.size} removals, more than one enforce run makes (${MAX_PLANNED}): give one run's report or audit lines`);
  return { source, removals: [...done.values()], notes };
}

/** The line as JSON, or the JSON object that starts at its first "{". */
function jsonLine(line: string): unknown {
  const brace = line.indexOf("{");
  return parseJson(line) ?? (brace > 0 ? parseJson(line.slice(brace)) : undefined);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The first issues, each with the field it is about; zod's messages name types, never values. */
function issuesText(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
    return `${path ? `${path}: ` : ""}${issue.message}`;
  });
  const more = error.issues.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}
