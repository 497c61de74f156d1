/** Removes the project shares the policy does not allow: daily on schedule, or on demand (see lib/scheduled.ts). */
import { scheduledJob } from "./lib/scheduled.ts";

export const handler = scheduledJob("enforce");
