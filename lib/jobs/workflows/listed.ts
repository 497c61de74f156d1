/**
 * Which of the workflows a listing gives are judged (index.ts): each id once, and only in a shape n8n
 * writes. lib/paging drops an item that repeats the page before; a workflow listed again further on (a
 * listing shifted by workflows created or deleted meanwhile, or a server's doing) would be judged twice,
 * and two opposite changes made to it in one run. A workflow whose name is not text, or whose tags are not
 * a list of names, cannot be judged by the policy's selectors: judged without them it could be switched
 * off for a tag it has, and failing on it would stop every run for one item. One whose id is not as n8n
 * makes them (letters, digits, _ and -) is never named in a request: `.` or `..` would change its path
 * (`/workflows/../unpublish`). All are left as they are, and said. The ids seen are held for the run: at
 * most MAX_WORKFLOWS of them.
 */
import type { Workflow } from "../../n8n/index.ts";
import { count } from "../view.ts";

/** The most workflows a run lists: n8n instances hold hundreds or thousands; a listing past this is no n8n's. */
export const MAX_WORKFLOWS = 100_000;

export class ListedWorkflows {
  /** Workflows listed, repeats included: what bounds a listing (index.ts's MAX_WORKFLOWS). */
  count = 0;
  private readonly seen = new Set<string>();
  private repeated = 0;
  private malformed = 0;
  /** After the listing started again (pages.ts), the repeats of what was read before it: Warden's own re-reads, not n8n's doing. */
  private rereads = 0;

  /** The listing starts again from its first page: up to every workflow seen so far comes again, and is dropped without a word. */
  relisted(): void {
    this.rereads = this.seen.size;
  }

  /** Whether to judge `wf`: the first time its id is listed, when its fields are as n8n writes them. */
  take(wf: Workflow): boolean {
    if (this.seen.has(wf.id) && this.rereads > 0) return (this.rereads--, false);
    this.count++;
    if (this.seen.has(wf.id)) return (this.repeated++, false);
    this.seen.add(wf.id);
    if (!wellFormed(wf)) return (this.malformed++, false);
    return true;
  }

  warnings(): string[] {
    return [
      ...(this.repeated ? [`n8n listed ${count(this.repeated, "workflow")} more than once (workflows created or deleted while it was listed shift its pages): each was judged once, as first listed`] : []),
      ...(this.malformed ? [`n8n listed ${count(this.malformed, "workflow")} in a shape no n8n writes (an id not of letters, digits, _ and -, a name that is not text, tags that are not a list of names): left as they are`] : []),
    ];
  }
}

/** An id as n8n makes them, which no request's path can be changed by. */
const PLAIN_ID = /^[A-Za-z0-9_-]+$/;

export function wellFormed(wf: Workflow): boolean {
  const { id, name, tags, active, activeVersionId, isArchived } = wf as Partial<Record<keyof Workflow, unknown>>;
  const tagsOk = tags === undefined || (Array.isArray(tags) && tags.every((tag) => typeof tag === "object" && tag !== null && typeof (tag as { name?: unknown }).name === "string"));
  return typeof id === "string" && PLAIN_ID.test(id) && typeof name === "string" && tagsOk && (active === undefined || typeof active === "boolean") && (activeVersionId == null || typeof activeVersionId === "string") && (isArchived === undefined || typeof isArchived === "boolean");
}
