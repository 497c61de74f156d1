/**
 * What an examiner is given (the Examination: the resources of one slice) and what it hands back to
 * (the Sink: the subjects it found, follow-up work, work left by a pause). A group's detail carries
 * projects, so the group examiner hands project results and project work back too: through the sink,
 * never by importing the project examiner's caller.
 */
import type { GitLabClient, Project } from "../../../gitlab/index.ts";
import type { Policy } from "../../../policy/index.ts";
import type { ShareKindName, Subject } from "../../shares/plan.ts";
import type { Ledger } from "./ledger.ts";
import type { Slots } from "./slots.ts";
import type { Unexamined } from "./unexamined.ts";
import type { ExaminationWork } from "./work.ts";

export interface Examination {
  gitlab: GitLabClient;
  policy: Policy;
  /** Whether the token sees every group (administrator or auditor). */
  seesAllGroups: boolean;
  /** Examination requests in flight at once, both kinds together. */
  concurrency: number;
  /**
   * The one pool of `concurrency` request slots every examination request takes, of both kinds: a pool
   * per kind would leave one idle as soon as its kind ran dry (slots.ts says who waits for whom).
   */
  slots: Slots;
  signal: AbortSignal;
  /** Once aborted, the examination starts no request: what is left is handed back as work to resume. */
  pause?: AbortSignal | undefined;
  /** Each project judged in this slice, and by which listing. */
  ledger: Ledger;
  /** Parts GitLab failed to answer for in this slice: recorded, and the examination goes on (unexamined.ts). */
  unexamined: Unexamined;
  warnings: string[];
  /** Project targets the run's look-up read already (examine/targets.ts), by id: each taken once, instead of a second read. */
  held?: Map<number, HeldRead> | undefined;
}

/**
 * A project as a run's look-up of its target read it: `GET /projects/:id`, the very read its
 * examination sends (projects/one.ts), and when that was sent. Kept in memory only, for the run that
 * looked it up: a step replayed from its record reads the project again.
 */
export interface HeldRead {
  project: Project;
  sentAt: number;
}

export interface Sink {
  /**
   * Judges subjects of a kind as they arrive (a group's detail carries its own projects too); `readAt`,
   * when they were read before now (epoch ms), is what a removal counts its plan's age from.
   */
  judge(kind: ShareKindName, subjects: Subject[], readAt?: number): void;
  /**
   * Examines more work, of any kind, within this slice (a group's own projects too many for its
   * detail to carry); what a pause leaves goes to the slice's frontier. True when all of it was done.
   * It never rejects: a failure stops the whole examination, which throws it.
   */
  spawn(work: ExaminationWork): Promise<boolean>;
  /** Hands back work a pause left undone, to be resumed by a later slice. */
  leave(work: ExaminationWork): void;
}
