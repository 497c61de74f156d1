/** n8n simulators for the workflows job's tests: workflows made in one line, each simulator closed after its test, a client of its own for each run. */
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { N8nClient } from "../../lib/n8n/index.ts";
import { startN8nSim, type N8nSim, type N8nSimOptions, type SimWorkflow } from "../../sim/n8n/index.ts";
import { afterTest } from "./cleanup.ts";

/** A workflow with a trigger, inactive, unarchived and untagged unless `overrides` says otherwise. */
export function workflow(id: string, name: string, overrides: Partial<SimWorkflow> = {}): SimWorkflow {
  const at = "2025-01-01T00:00:00.000Z";
  return { id, name, active: false, isArchived: false, tags: [], hasTrigger: true, createdAt: at, updatedAt: at, ...overrides };
}

/** An n8n simulator, closed after the test that started it (test/support/cleanup.ts). */
export async function n8nSim(opts: N8nSimOptions): Promise<N8nSim> {
  return afterTest.add(await startN8nSim(opts));
}

/** A client of an n8n (a simulator, or a scripted server) with a rate limiter of its own and short retries. */
export function n8nClient(at: { url: string }, apiKey: string): N8nClient {
  return new N8nClient({ url: at.url, apiKey, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 1 } });
}
