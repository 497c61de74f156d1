/**
 * The project examiner: the scope groups' projects, each group listed as one tree and split where
 * large, or the whole instance in id ranges; judged a page at a time as the pages arrive.
 */
import type { Project } from "../../../../gitlab/index.ts";
import { projectSubject } from "../../../shares/kinds.ts";
import type { Examination, Sink } from "../context.ts";
import { instanceRanges, projectsWithDetails } from "../scope.ts";
import { PRIORITY } from "../slots.ts";
import { scopeListing, type ProjectWork, type ScopeRoot } from "../work.ts";
import { readEnds } from "./both-ends.ts";
import { examineOneProject } from "./one.ts";
import { listingOf, listingRun } from "./pages.ts";
import { partition } from "./partition.ts";
import { sweepScope } from "./sweep.ts";

/**
 * The project listing's first work: the scope groups, or the instance; none where the groups' details
 * carry the projects (groups/detail-projects.ts).
 */
export function beginProjects(roots: readonly ScopeRoot[] | undefined, seesAllGroups: boolean): ProjectWork[] {
  if (roots === undefined) return [{ kind: "project", list: "instance" }];
  return projectsWithDetails(roots, seesAllGroups) ? [] : roots.map(scopeListing);
}

/**
 * One piece of the project listing, and all it leads to, judged a page at a time as the pages arrive.
 * Every request takes a slot of the examination's pool, which the group shares' reads use too. When
 * the examination pauses (`exam.pause`), no request is started any more and what is left goes back to
 * the sink as work to resume. A scope group listed whole within one slice (a run in one go is one
 * slice), in more than one page, is then swept for projects moved meanwhile (sweep.ts).
 */
export async function examineProjects(exam: Examination, work: ProjectWork, sink: Sink): Promise<void> {
  const judgeProjects = (items: Project[]) => sink.judge("project", items.map(projectSubject));
  let left = false;
  const keep = (unfinished: ProjectWork) => {
    left = true;
    sink.leave(unfinished);
  };
  const run = listingRun(exam, judgeProjects, keep);
  if (work.at) return readEnds(run, work, work.at);
  if (exam.pause?.aborted) return sink.leave(work);
  if (work.list === "instance") {
    const ranges = await exam.slots(() => instanceRanges(exam.gitlab, exam.concurrency * 2, exam.signal), PRIORITY.opening);
    await Promise.all(ranges.map((list) => examineProjects(exam, { kind: "project", list }, sink)));
    return;
  }
  if ("project" in work.list) return examineOneProject(exam, { ...work, list: work.list }, sink);
  await partition(run, work);
  const root = listingOf(run, work);
  // Only a scope group begun here (split partitions carry judgedUpTo) has all it judged in this ledger.
  const begunHere = work.judgedUpTo === undefined && work.share === undefined && work.partOf === undefined;
  if (left || !begunHere || root === "instance" || run.began === undefined || !run.paged) return;
  await sweepScope(exam, root, run.began, judgeProjects, run.listings);
}
