/**
 * Every workflow, with no `active` filter: activity is decided per item (index.ts). n8n's cursor is an
 * offset into the listing *as filtered*, so with `active=true` a workflow switched off between two
 * pages moves every later one a place back and one is skipped (switched on, one is seen twice).
 * Activation changes neither the membership nor the (id) order of an unfiltered listing, so no one's
 * activation change can shift it. A workflow created or deleted mid-listing still shifts it: a
 * creation repeats an item (lib/paging drops repeats by id); a deletion can hide one until the next run.
 * Pinned data is never fetched.
 */
import { N8N_MAX_LIMIT, UnexpectedAnswerError, type N8nClient } from "../../n8n/index.ts";

/**
 * The listing's pages, the largest n8n allows (250) first. n8n lists whole workflows, nodes and all (and
 * in 2.x the published version's again): Warden parses only the fields it reads of each (WORKFLOW_FIELDS),
 * but 250 large ones can still pass what it reads of one answer (64 MiB), or their fields read what it
 * parses (a million objects and arrays), and every run would fail on that page for good. Such a
 * page starts the listing again at half the size, down to one workflow a page; n8n's cursor carries its
 * page size, so a smaller page is a new listing, whose repeats of what was read already the caller drops
 * (ListedWorkflows: `relisted` is called as it starts again). Only one workflow too large alone ends it,
 * with that answer's error.
 */
export async function* workflowPages(n8n: N8nClient, relisted: () => void, signal?: AbortSignal) {
  for (let limit = N8N_MAX_LIMIT; ; limit = Math.ceil(limit / 2)) {
    try {
      yield* n8n.listWorkflows({ limit }, { signal }).pages();
      return;
    } catch (err) {
      if (!(err instanceof UnexpectedAnswerError && err.tooLarge) || limit === 1 || signal?.aborted) throw err;
      relisted();
    }
  }
}
