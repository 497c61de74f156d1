/**
 * The registry of examiners, one per kind of share, on top of everything else in examine/: only the
 * slice (which runs the work) and the job (which begins it) import it, so no examiner depends on it.
 */
import { SHARE_KIND_NAMES, type ShareKindName } from "../../shares/plan.ts";
import type { Examination, Sink } from "./context.ts";
import { beginGroups, examineGroups } from "./groups/index.ts";
import { beginProjects, examineProjects } from "./projects/index.ts";
import type { ExaminationWork, ScopeRoot } from "./work.ts";

interface Examiner<W extends ExaminationWork> {
  /** The kind's first work: for the scope groups (undefined: the whole instance), for a token that sees every group or not. */
  begin(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): W[];
  /** Does one piece of work and all it leads to, handing subjects, follow-up work and what a pause leaves to `sink`. */
  examine(exam: Examination, work: W, sink: Sink): Promise<void>;
}

const EXAMINERS: { [K in ShareKindName]: Examiner<Extract<ExaminationWork, { kind: K }>> } = {
  project: { begin: beginProjects, examine: examineProjects },
  group: { begin: beginGroups, examine: examineGroups },
};

/** The examination's first work, every kind's, in the kinds' order. */
export function beginExamination(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): ExaminationWork[] {
  return SHARE_KIND_NAMES.flatMap((kind): ExaminationWork[] => EXAMINERS[kind].begin(roots, seesAllGroups));
}

export function examineWork(exam: Examination, work: ExaminationWork, sink: Sink): Promise<void> {
  return work.kind === "project" ? EXAMINERS.project.examine(exam, work, sink) : EXAMINERS.group.examine(exam, work, sink);
}
