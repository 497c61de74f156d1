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

/** Copies the seed workflows and makes `activeVersionId` agree with `active` wherever the field is kept. */
export function initialState(seed: SimWorkflow[], dialect: Dialect): SimWorkflow[] {
  return seed
    .map((wf) => {
      const copy = structuredClone(wf);
      if (tracksActiveVersion(copy, dialect)) {
        copy.activeVersionId = copy.active ? (copy.activeVersionId ?? randomUUID()) : null;
      }
      return copy;
    })
    .sort(byId);
}

/** Flips activation the way n8n records it; setting the current state again changes nothing, as in n8n. */
export function applyActive(wf: SimWorkflow, active: boolean, dialect: Dialect): void {
  if (wf.active === active) return;
  wf.active = active;
  if (tracksActiveVersion(wf, dialect)) wf.activeVersionId = active ? randomUUID() : null;
  wf.updatedAt = new Date().toISOString();
}
