/**
 * Keeps n8n's active workflows as the policy says: hourly on schedule, or on demand (see functions/shared/runs/scheduled.ts).
 * Each run is told the changes n8n refused for good in the run before, which its guard does not count, and leaves its own
 * for the next (functions/shared/state/workflows-refusals.ts).
 */
import { scheduledJob } from "./shared/runs/scheduled.ts";

export const handler = scheduledJob("workflows");
