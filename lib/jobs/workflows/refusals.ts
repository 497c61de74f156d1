/** What the 403s n8n answered a run's changes say, in the run's warnings (lib/jobs/workflows/index.ts). */
import { count } from "../view.ts";

/** A change of the run, as far as this needs it. */
interface Change {
  type: "activate" | "deactivate";
  status: string;
}

/**
 * What the 403s of a run say, by kind of change: every one of a kind refused is most often the scope for
 * it the key lacks (the actions' errors name it), but n8n answers the same 403 to a key whose user may
 * not change those workflows (a viewer of their project, a workflow shared read-only), so both are named;
 * some refused while others of the kind were made is not the key's scope, but something about those workflows.
 */
export function refusals(changes: readonly Change[], forbidden: readonly Change[]): string[] {
  return (["activate", "deactivate"] as const).flatMap((type) => {
    const refused = forbidden.filter((a) => a.type === type);
    if (!refused.length) return [];
    const made = changes.filter((a) => a.type === type && a.status === "done").length;
    const kind = type === "activate" ? "activation" : "deactivation";
    return made
      ? [`n8n refused ${count(refused.length, kind)} (403) but made ${made} other${made === 1 ? "" : "s"} with the same key: not the key's scope, but something about those workflows (see their errors); the next run tries them again`]
      : [
          `n8n refused every ${kind} Warden sent (403): the API key lacks the workflow:${type} scope, or the key's user may not change those workflows ` +
            `(a viewer of their project, or shared them read-only); give the key that scope, or its user a role that may change them, and the next run makes them`,
        ];
  });
}
