/** n8n simulators for the workflows job's tests: workflows made in one line, each simulator closed after its test. */
import { afterEach } from "vitest";
import { startN8nSim, type N8nSim, type N8nSimOptions, type SimWorkflow } from "../../sim/n8n/index.ts";

/** A workflow with a trigger, inactive, unarchived and untagged unless `overrides` says otherwise. */
export function workflow(id: string, name: string, overrides: Partial<SimWorkflow> = {}): SimWorkflow {
  const at = "2025-01-01T00:00:00.000Z";
  return { id, name, active: false, isArchived: false, tags: [], hasTrigger: true, createdAt: at, updatedAt: at, ...overrides };
}

/** Starts simulators that are closed after the test that started them (call at a test file's top level). */
export function n8nSims(): (opts: N8nSimOptions) => Promise<N8nSim> {
  const started: N8nSim[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((sim) => sim.close()));
  });
  return async (opts) => {
    const sim = await startN8nSim(opts);
    started.push(sim);
    return sim;
  };
}
