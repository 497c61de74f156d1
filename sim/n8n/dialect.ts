import type { Generation, SimWorkflow } from "./types.ts";

/** Every place where n8n 1.x and 2.40+ answer differently, so the handlers never branch on the generation number. */
export interface Dialect {
  unauthorizedMessage(keyPresent: boolean): string;
  enforcesScopes: boolean;
  /** 1.x rejects limit > 250; 2.x cuts it to 250. */
  cutsLimit: boolean;
  /** 1.x treats a negative limit like 0 (everything); 2.x rejects it. */
  acceptsNegativeLimit: boolean;
  hasPublishRoutes: boolean;
  deprecatesActivateRoutes: boolean;
  /** 2.x keeps `activeVersionId` on every workflow; 1.x only where the field exists. */
  alwaysTracksActiveVersion: boolean;
  /**
   * 2.x: an activation publishes the body's `versionId`, else the latest saved version, even over one already
   * live (WorkflowService.activateWorkflow). 1.x reads no body and leaves an active workflow as it is.
   */
  publishesVersions: boolean;
  activatesArchived: boolean;
  conflictStatus: number;
  noTriggerMessage(wf: SimWorkflow): string;
  /** `verb` is the route's last segment: activate, deactivate, publish or unpublish. */
  unknownWorkflowMessage(verb: string): string;
}

export const dialects: Record<Generation, Dialect> = {
  1: {
    unauthorizedMessage: (keyPresent) => (keyPresent ? "unauthorized" : "'X-N8N-API-KEY' header required"),
    enforcesScopes: false,
    cutsLimit: false,
    acceptsNegativeLimit: true,
    hasPublishRoutes: false,
    deprecatesActivateRoutes: false,
    alwaysTracksActiveVersion: false,
    publishesVersions: false,
    activatesArchived: true,
    conflictStatus: 400,
    noTriggerMessage: (wf) =>
      `Workflow "${wf.name}" (ID: ${wf.id}) has no node to start the workflow - at least one trigger, poller or webhook node is required`,
    unknownWorkflowMessage: () => "Not Found",
  },
  2: {
    unauthorizedMessage: () => "Unauthorized",
    enforcesScopes: true,
    cutsLimit: true,
    acceptsNegativeLimit: false,
    hasPublishRoutes: true,
    deprecatesActivateRoutes: true,
    alwaysTracksActiveVersion: true,
    publishesVersions: true,
    activatesArchived: false,
    conflictStatus: 409,
    noTriggerMessage: () =>
      "Workflow cannot be activated because it has no trigger node. At least one trigger, webhook, or polling node is required.",
    unknownWorkflowMessage: (verb) =>
      `You do not have permission to ${verb} this workflow. Ask the owner of the workflow to share it with you`,
  },
};
