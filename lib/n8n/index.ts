export { contradiction, N8nClient, type N8nClientOptions, type WorkflowFilter } from "./client.ts";
export { isActive, type ApiGeneration, type Workflow } from "./types.ts";
export { HttpError, mayHaveBeenMade, UnexpectedAnswerError } from "../http/index.ts";
export { N8N_MAX_LIMIT } from "../paging/index.ts";
