import { randomUUID } from "node:crypto";
import type { Dialect } from "./dialect.ts";
import type { SimWorkflow } from "./types.ts";

/** Workflow lists are ordered by id in n8n (code-unit order, as SQLite compares), not by creation time. */
export function byId(a: SimWorkflow, b: SimWorkflow): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether this workflow carries `activeVersionId` under this generation. */
export function tracksActiveVersion(wf: SimWorkflow, dialect: Dialect): boolean {
  return dialect.alwaysTracksActiveVersion || wf.activeVersionId !== undefined;
}

/** The workflow's latest saved version: every n8n workflow has one, so one a test added without it is given one. */
export function savedVersion(wf: SimWorkflow): string {
  return (wf.versionId ??= randomUUID());
}

/**
 * Copies the seed workflows, each with a saved version, and makes `activeVersionId` agree with `active`
 * wherever the field is kept (an active one runs its latest saved version unless the seed says another).
 */
export function initialState(seed: SimWorkflow[], dialect: Dialect): SimWorkflow[] {
  return seed
    .map((wf) => {
      const copy = structuredClone(wf);
      const version = savedVersion(copy);
      if (tracksActiveVersion(copy, dialect)) {
        copy.activeVersionId = copy.active ? (copy.activeVersionId ?? version) : null;
      }
      return copy;
    })
    .sort(byId);
}

/** Flips activation the way n8n records it; setting the current state again changes nothing, as in n8n 1.x (and any unpublish). */
export function applyActive(wf: SimWorkflow, active: boolean, dialect: Dialect): void {
  if (wf.active === active) return;
  if (active) return publishVersion(wf, savedVersion(wf), dialect);
  wf.active = false;
  if (tracksActiveVersion(wf, dialect)) wf.activeVersionId = null;
  wf.updatedAt = new Date().toISOString();
}

/** Makes `versionId` the live version, as n8n 2.x's publish does even over another one live; that one again changes nothing. */
export function publishVersion(wf: SimWorkflow, versionId: string, dialect: Dialect): void {
  const tracked = tracksActiveVersion(wf, dialect);
  if (wf.active && (!tracked || wf.activeVersionId === versionId)) return;
  wf.active = true;
  if (tracked) wf.activeVersionId = versionId;
  wf.updatedAt = new Date().toISOString();
}

/** A new latest saved version, as a person's save in the UI makes; the live one (2.x) stays. */
export function saveDraft(wf: SimWorkflow): string {
  wf.versionId = randomUUID();
  wf.updatedAt = new Date().toISOString();
  return wf.versionId;
}
