/**
 * One project, read by itself: a run's project target (examine/targets.ts). `GET /projects/:id`
 * carries `shared_with_groups` as a listing does, so one request judges it; none where the target's
 * look-up read it already in this run (Examination.held): the same request, a moment before.
 */
import { projectSubject, unlessNotFound } from "../../../shares/kinds.ts";
import type { Examination, Sink } from "../context.ts";
import { unjudged, type GroupListing } from "../ledger.ts";
import { inSlot, PAUSED, PRIORITY } from "../slots.ts";
import { notExamined } from "../unexamined.ts";
import type { OneProject, ProjectWork } from "../work.ts";

export async function examineOneProject(exam: Examination, work: ProjectWork & { list: OneProject }, sink: Sink): Promise<void> {
  const held = exam.held?.get(work.list.project);
  exam.held?.delete(work.list.project);
  let project;
  try {
    project = held ? held.project : await inSlot(exam, () => unlessNotFound(exam.gitlab.getProject(work.list.project, exam.signal)), PRIORITY.opening);
  } catch (err) {
    // One project GitLab fails on every time (a target, or one a full step left to be read by its id)
    // must not fail the run and every run after it: it alone is not examined, named (unexamined.ts).
    return notExamined(exam.unexamined, err, exam.signal, { kind: "project", id: work.list.project, ...(work.path === undefined ? {} : { path: work.path }) });
  }
  if (project === PAUSED) return sink.leave(work);
  // Deleted (or out of the token's sight) since the run began: no share of it is left to govern.
  if (!project) return;
  // Read in one answer, which no move shifts (ledger.ts); judged once, though another target lists it too.
  const { namespace } = project;
  const by: GroupListing = { group: namespace?.id ?? 0, ...(namespace ? { path: namespace.full_path } : {}), own: true, whole: true };
  const fresh = unjudged(exam.ledger, [project], by);
  if (fresh.length) sink.judge("project", fresh.map(projectSubject), held?.sentAt);
}
