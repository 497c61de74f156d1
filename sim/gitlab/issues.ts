import type { Handler, RequestContext } from "./context.ts";
import { invalid } from "./context.ts";
import type { SimProject } from "./dataset.ts";
import { notFound } from "./http.ts";
import { lazyList, listReply, offsetPage } from "./pagination.ts";
import { findProject } from "./projects.ts";
import { storedIssue, storedIssueNotes } from "./issues-api.ts";

/**
 * These fixed issues are derived from the project, never stored (issues-api.ts stores the ones created): each project has iids 1..ISSUES_PER_PROJECT,
 * whose global ids lie far above any iid, so fetching an issue by its global id is a 404.
 * Issue iid n has n × NOTES_PER_IID notes, enough to paginate.
 */
const ISSUES_PER_PROJECT = 3;
const NOTES_PER_IID = 12;
const FIRST_ISSUE_ID = 1_000_000;

const issueId = (project: SimProject, iid: number): number => FIRST_ISSUE_ID + (project.id - 1) * ISSUES_PER_PROJECT + iid;

function findIssue(ctx: RequestContext): { project: SimProject; iid: number } {
  const project = findProject(ctx);
  const raw = ctx.path["iid"]!;
  if (!/^\d+$/.test(raw)) throw invalid("iid");
  const iid = Number(raw);
  if (iid < 1 || iid > ISSUES_PER_PROJECT) throw notFound("Issue");
  return { project, iid };
}

export const getIssue: Handler = (ctx) => {
  const stored = storedIssue(ctx, findProject(ctx));
  if (stored) return { status: 200, body: { ...stored, notes: undefined } };
  const { project, iid } = findIssue(ctx);
  return {
    status: 200,
    body: {
      id: issueId(project, iid),
      iid,
      project_id: project.id,
      title: `Issue ${iid} of ${project.name}`,
      state: "opened",
      web_url: `${ctx.baseUrl}/${project.path_with_namespace}/-/issues/${iid}`,
    },
  };
};

export const listIssueNotes: Handler = (ctx) => {
  const stored = storedIssue(ctx, findProject(ctx));
  if (stored) return storedIssueNotes(ctx, findProject(ctx), stored);
  const { project, iid } = findIssue(ctx);
  const id = issueId(project, iid);
  const notes = lazyList(iid * NOTES_PER_IID, (n) => ({
    id: id * 100 + n,
    body: `Note ${n + 1}`,
    noteable_id: id,
    noteable_iid: iid,
    noteable_type: "Issue",
  }));
  return listReply(offsetPage(ctx, notes), (note) => note);
};
