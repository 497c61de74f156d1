export { N8nClient, type N8nClientOptions, type WorkflowFilter } from "./client.ts";
export { isActive, type ApiGeneration, type Workflow } from "./types.ts";
export { HttpError } from "../http/index.ts";
