/** The fields Warden reads from n8n workflow objects, across both API generations. */

export interface Workflow {
  id: string;
  name: string;
  /** Deprecated in n8n 2.x, where activity is `activeVersionId !== null`. */
  active?: boolean;
  activeVersionId?: string | null;
  /** The latest saved version (n8n 2.x: a draft until published), which an activation publishes unless told another. */
  versionId?: string;
  isArchived?: boolean;
  tags?: { id: string; name: string }[];
  updatedAt?: string;
}

/**
 * What Warden parses of a workflow n8n sends (lib/http/json-fields.ts): its nodes, connections and the
 * rest are any member's free-form JSON, passed over unparsed.
 */
export const WORKFLOW_FIELDS = ["id", "name", "active", "activeVersionId", "versionId", "isArchived", "tags", "updatedAt"] as const satisfies readonly (keyof Workflow)[];

/** 1 = n8n 1.x (`/activate`, `/deactivate`); 2 = n8n 2.40+ (`/publish`, `/unpublish`). */
export type ApiGeneration = 1 | 2;

/** `activeVersionId` where the field exists (n8n 1.123+ and 2.x), else the older `active` flag. */
export function isActive(wf: Workflow): boolean {
  return "activeVersionId" in wf ? wf.activeVersionId != null : wf.active === true;
}
