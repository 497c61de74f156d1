/** Keeps n8n's active workflows as the policy says: hourly on schedule, or on demand (see functions/lib/runs/scheduled.ts). */
import { scheduledJob } from "./lib/runs/scheduled.ts";

export const handler = scheduledJob("workflows");
