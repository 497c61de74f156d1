/** Loopback simulator of the n8n public API (1.x and 2.40+), for tests and demos. */
export { generateWorkflows } from "./generate.ts";
export { startN8nSim } from "./server.ts";
export type { N8nCounters, N8nFault, N8nSim, N8nSimOptions, RecordedRequest, SimWorkflow } from "./types.ts";
