/**
 * The durable frontier: the examination's work not yet done, as JSON. A run in steps (a durable
 * execution) records it at the end of every slice and resumes from it, and an execution in flight
 * during a deploy replays what the old code recorded: changing a field here changes what it replays,
 * so rename or drop one only with a reader for the old form (test/jobs/checkpoint-shape.test.ts pins
 * the keys).
 */
import type { Visibility } from "../../../gitlab/index.ts";
import type { Checkpoint } from "../../../paging/index.ts";

/** A piece of the examination not yet done, of either kind. */
export type ExaminationWork = ProjectWork | GroupWork;

/** An outermost scope group: its id, and its full path as GitLab spells it. */
export interface ScopeRoot {
  id: number;
  path: string;
}

/**
 * Where a project listing stands: the instance not yet divided into id ranges; an id range; a
 * group's projects with its subgroups' (a partition, split where large), or its own only (`own`);
 * or one project, read by itself (a run's target, targets.ts).
 */
export interface ProjectWork {
  kind: "project";
  list: "instance" | { after?: number; before?: number } | GroupList | OneProject;
  /** A group's full path, where known: where a project moved out of the listing shows (ledger.ts). */
  path?: string;
  /** A group's own projects read for the examination of this scope group's details, which sweeps them (groups/detail-projects.ts). */
  partOf?: number;
  /** The projects the group's detail carried, judged already (in whatever slice this listing is resumed). */
  carried?: number[];
  /**
   * Projects with ids up to this one were judged already, by an enclosing listing's first page: a
   * listing sorted by id ascending opens on its subtree's smallest ids, so one number says which.
   */
  judgedUpTo?: number;
  /**
   * Not a share: the split threshold, in pages, handed down from the root's first page to the
   * branches split off it (projects/partition.ts). Named `share` in the checkpoint's JSON, so kept.
   */
  share?: number;
  /** Set once the listing's first page is read: where its ends stand. */
  at?: Ends;
}

/** A listing of one group's projects: its subtree's, or its own only, of one visibility or all. */
export type GroupList = { group: number; own?: true; visibility?: Visibility };

/** One project by its id: a target of the run, read whole in one answer. */
export type OneProject = { project: number };

/** Both ends of a listing read from its two ends (or one end only: `down` null). */
export interface Ends {
  up: Checkpoint;
  /** Absent until the descending end begins. */
  down?: Checkpoint | null;
  /** The highest id the ascending end reached, and the lowest the descending end reached. */
  top: number;
  bottom: number | null;
  /** Projects read, and how many the first page announced (null: above 10,000, not counted). */
  seen: number;
  projects: number | null;
}

/**
 * Where the group examination stands: group ids listed and not yet read, and the listing the rest
 * come from (a scope group's descendants, or every group the token sees) with its position; or the
 * scope groups' ancestors, still to be read.
 */
export type GroupWork = GroupReads | { kind: "group"; ancestors: readonly ScopeRoot[] };

export interface GroupReads {
  kind: "group";
  pending: number[];
  list?: { descendantsOf: number } | "all";
  from?: Checkpoint;
  /** The listing's count on its first page (GitLab's, up to 10,000), kept while it is read: it must show as many (groups/index.ts). */
  counted?: number;
  /** Set where the details carry the groups' own projects too (groups/detail-projects.ts). */
  projects?: DetailProjectsState;
}

/** Where the details of a scope group's tree carry their projects. */
export interface DetailProjectsState {
  root: ScopeRoot;
  /** False once a detail came without projects: the scope group is listed instead. */
  carried?: false;
  /** Groups whose own projects are listed: their details' projects are left to the listing. */
  listed?: number[];
}

/** A scope group's projects, its subgroups' included: listed as one, split where large, then swept. */
export function scopeListing(root: ScopeRoot): ProjectWork {
  return { kind: "project", list: { group: root.id }, path: root.path };
}
