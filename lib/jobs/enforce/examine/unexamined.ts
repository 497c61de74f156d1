/**
 * Parts of the scope the examination could not examine: a group whose detail GitLab failed to answer
 * (after lib/http's own retries) with anything but "gone" or "token refused", or the rest of a group's
 * project listing, of an id range of the instance's, or of a scope group's subgroups' listing, whose
 * page it failed so (projects/pages.ts, groups/index.ts), or that showed fewer than it counted
 * (listedShort). One group GitLab cannot
 * answer for (a bug on one group happens, and answers 500 every time) must not stop every run from
 * removing the strays everywhere else: the part is recorded here, the examination goes on, and the
 * report names it (summarise.ts), so that the next run tries it again. The record is part of each
 * examination step's result (slice.ts), so a durable execution replaying it keeps it.
 */
import { HttpError } from "../../../gitlab/index.ts";
import { isTerminal } from "../../../http/index.ts";
import { errorText } from "../../report/index.ts";
import { goneByGitLab } from "../../shares/kinds.ts";

/**
 * A part not examined: a group (its shares, from its detail), the projects of a group's listing from
 * the page that failed on, the projects of an id range of the instance from the page that failed on, or
 * the subgroups of a scope group's listing from the page that failed on, or all of them where it came
 * out short (their shares: their projects are listed with the scope group's, groups/index.ts), or the
 * instance's groups alike (a policy without a scope; their projects are listed by id), or one project read by
 * itself (projects/one.ts: a target, or one left to be read by its id); its id, its full path where known, GitLab's
 * answer; `lasting`: another try would meet it again (a 4xx).
 */
export interface UnexaminedPart {
  kind: "group" | "project" | "projects" | "subgroups" | "range" | "groups";
  /** A group's id (a project's, for kind project); for a range, the last id listed in it (or where it starts): the ids above it were not examined; for the instance's groups, 0; for a scope group GitLab failed to look up (examine/scope.ts), 0, with its path. */
  id: number;
  /** A range's end (the ids below it), unless it is the last, open-ended one. */
  before?: number;
  path?: string;
  error: string;
  lasting: boolean;
  /** Its own projects were to come with its detail (groups/detail-projects.ts): they were not examined either. */
  projects?: "not examined";
}

/** The parts not examined: the first MAX_UNEXAMINED of them, and how many in all. */
export interface Unexamined {
  parts: UnexaminedPart[];
  count: number;
}

/** The most parts a run keeps by name (a GitLab failing on every group must not grow the report or a checkpoint without bound). */
export const MAX_UNEXAMINED = 100;

export function noneUnexamined(): Unexamined {
  return { parts: [], count: 0 };
}

/**
 * Whether a read's failure is the run's rather than the part's: the run stopped (its signal, another
 * examination's failure, the invocation's deadline), or the token refused (a 401: every other read
 * would be refused alike). Those end the run; any other leaves out only what that read was for.
 */
export function isRunFailure(err: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (err instanceof HttpError && err.status === 401);
}

/**
 * A page of a group's listing (its projects, or a scope group's subgroups) that GitLab failed on, after
 * lib/http's retries. The run's own failure (isRunFailure) is thrown again. GitLab's "404 Group Not
 * Found": the group was deleted since the run found it (or went out of the token's sight), and what it
 * lists with it, so nothing of that is left to govern: said once, and the run goes on, as for a group or
 * project whose detail is gone. Anything else, a 404 in other words too (a proxy's bare one for one
 * page would otherwise hide the rest of the listing from a run that says it is complete), leaves the
 * rest of the listing not examined, recorded (notExamined): true.
 */
export function listingFailed(into: Unexamined, warnings: string[], err: unknown, signal: AbortSignal, part: { kind: "projects" | "subgroups"; id: number; path?: string | undefined }): boolean {
  if (isRunFailure(err, signal)) throw err;
  const { kind, id, path } = part;
  if (!goneByGitLab(err)) {
    notExamined(into, err, signal, { kind, id, ...(path === undefined ? {} : { path }) });
    return true;
  }
  const said = `the ${kind} of group ${id}${path ? ` (${path})` : ""} could not be listed: GitLab answered 404 (deleted, or out of the token's sight, since the run began): its ${kind} were left out`;
  if (!warnings.includes(said)) warnings.push(said);
  return false;
}

/** Records a part whose read failed with `err`, unless the failure is the run's (isRunFailure): that is thrown again. */
export function notExamined(into: Unexamined, err: unknown, signal: AbortSignal, part: Omit<UnexaminedPart, "error" | "lasting">): void {
  if (isRunFailure(err, signal)) throw err;
  // A listing read in parts (split by visibility, from both ends) may fail in each: one part of the scope, named once.
  if (into.parts.some((p) => p.kind === part.kind && p.id === part.id)) return;
  add(into, { ...part, error: errorText(err), lasting: isTerminal(err) });
}

/** How many a listing's first page counted, and how many it showed to its end. */
export interface Shortfall {
  counted: number;
  listed: number;
}

/**
 * A listing read to its end that showed fewer than its first page counted: a group's projects, a scope
 * group's subgroups, or the instance's groups (kind, projects unless named). One moved away, deleted or
 * out of the token's sight meanwhile shifts the later offset pages, so the one after it in the order was
 * never shown (GitLab lists these by offset only). Nothing tells which: the listing is recorded as not
 * examined in full, so that the run says so rather than "in policy", and the next run lists it again.
 */
export function listedShort(into: Unexamined, part: { kind?: "projects" | "subgroups" | "groups"; id: number; path?: string | undefined }, { counted, listed }: Shortfall): void {
  const { kind = "projects", id, path } = part;
  if (into.parts.some((p) => p.kind === kind && p.id === id)) return;
  const noun = kind === "projects" ? "project" : "group";
  const error = `GitLab counted ${counted} ${noun}s as the listing began and showed ${listed} to its end (a ${noun} moved away, deleted or out of the token's sight meanwhile shifts the later pages, and may hide another)`;
  add(into, { kind, id, ...(path === undefined ? {} : { path }), error, lasting: false });
}

/** Adds `more`'s parts (a slice's) to `into`, keeping at most MAX_UNEXAMINED by name. */
export function addUnexamined(into: Unexamined, more: Unexamined | undefined): Unexamined {
  if (!more) return into;
  for (const part of more.parts) {
    // Named by an earlier slice too (a listing resumed there failed again): counted once.
    if (into.parts.some((p) => p.kind === part.kind && p.id === part.id)) into.count--;
    else if (into.parts.length < MAX_UNEXAMINED) into.parts.push(part);
  }
  into.count += more.count;
  return into;
}

function add(into: Unexamined, part: UnexaminedPart): void {
  if (into.parts.length < MAX_UNEXAMINED) into.parts.push(part);
  into.count++;
}

/** The report's warnings for them: one a part kept by name, and one for the rest. */
export function unexaminedWarnings({ parts, count }: Unexamined): string[] {
  const warnings = parts.map((p) => {
    if (p.kind === "groups") return `the instance's groups could not all be listed: ${p.error}: the shares of those not listed were not examined (their projects were, listed by id); the next run tries them again`;
    if (p.kind === "range") return `the projects with ids above ${p.id}${p.before === undefined ? "" : ` and below ${p.before}`} could not all be listed: ${p.error}: the rest of that id range was not examined; the next run tries it again`;
    if (p.kind === "project") return `project ${p.id}${p.path === undefined ? "" : ` (${p.path})`} could not be examined: ${p.error}: its shares were not examined; the next run tries it again`;
    if (p.kind === "group" && p.id === 0) return `scope group ${p.path ?? "?"} could not be looked up: ${p.error}: nothing under it was examined; the next run tries it again`;
    const group = `group ${p.id}${p.path === undefined ? "" : ` (${p.path})`}`;
    if (p.kind === "projects") return `the projects of ${group} could not all be listed: ${p.error}: those the listing did not show were not examined; the next run tries it again`;
    if (p.kind === "subgroups") return `the subgroups of ${group} could not all be listed: ${p.error}: the shares of those not listed were not examined (their projects were, listed with ${group}'s); the next run tries them again`;
    const what = p.projects ? "its shares and its own projects' were not examined" : "its shares were not examined";
    return `${group} could not be examined: ${p.error}: ${what}; the next run tries it again`;
  });
  if (count > parts.length) warnings.push(`${count - parts.length} more parts of the scope could not be examined (the first ${parts.length} are named); the next run tries them again`);
  return warnings;
}
