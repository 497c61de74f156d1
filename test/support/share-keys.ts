/** A share as a key, to compare what a world meant with what a run planned: "p<project>:<group>" or "g<sharing group>:<group>". */
import type { ShareRemoval } from "../../lib/jobs/index.ts";
import type { ShareIntent } from "../../sim/gitlab/index.ts";

export const intentKey = (i: ShareIntent) => (i.kind === "project" ? `p${i.projectId}:${i.groupId}` : `g${i.sharedGroupId}:${i.groupId}`);
export const actionKey = (a: ShareRemoval) => (a.kind === "project" ? `p${a.projectId}:${a.groupId}` : `g${a.sharedGroupId}:${a.groupId}`);
/** The actions' keys, sorted. */
export const actionKeys = (actions: readonly ShareRemoval[]) => actions.map(actionKey).sort();
