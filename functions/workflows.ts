/** Keeps n8n's active workflows as the policy says: hourly on schedule, or on demand (see functions/shared/runs/scheduled.ts). */
import { scheduledJob } from "./shared/runs/scheduled.ts";

export const handler = scheduledJob("workflows");
