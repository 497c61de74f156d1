import type { AccessLevelName } from "./access-levels.ts";

/** The validated, compiled policy that parsePolicy returns: globs come compiled, defaults filled in. */
export interface Policy {
  readonly version: 1;
  readonly gitlab?: GitlabPolicy;
  readonly pipelines?: PipelinesPolicy;
  readonly n8n?: N8nPolicy;
  readonly chatops?: ChatopsPolicy;
}

/** A glob as written in the policy, with its matcher compiled once at parse time. */
export interface Glob {
  readonly pattern: string;
  readonly matches: (subject: string) => boolean;
}

export interface GitlabPolicy {
  /** Undefined: every project the token can see is governed. */
  readonly scope?: {
    readonly groups: readonly string[];
    /** Whether a project path lies under one of `groups` (whole segments, any case). */
    readonly includes: (projectPath: string) => boolean;
  };
  readonly shares: {
    readonly allow: readonly ShareAllowRule[];
    readonly exempt: readonly ShareExemption[];
  };
  readonly guard: { readonly maxRemovals: number };
}

export interface ShareAllowRule {
  /** Matched against the full path of the group the project is shared with. */
  readonly group: Glob;
  /** Undefined: the rule applies to every governed project. */
  readonly projects?: readonly Glob[];
  readonly maxAccess?: AccessLevelName;
}

export interface ShareExemption {
  readonly project: Glob;
  /** YYYY-MM-DD: the last UTC day on which the exemption applies. */
  readonly until?: string;
}

export interface PipelinesPolicy {
  readonly allow: readonly PipelineRule[];
}

export interface PipelineRule {
  readonly project: Glob;
  readonly refs: readonly Glob[];
  /** Names of the variables a request may set. */
  readonly variables: readonly string[];
}

export interface N8nPolicy {
  readonly workflows: {
    readonly keepActive: readonly WorkflowSelector[];
    readonly unlisted: "deactivate" | "report";
    readonly listedInactive: "activate" | "report";
  };
  readonly guard: { readonly maxChanges: number };
}

export interface WorkflowSelector {
  readonly kind: "id" | "name" | "tag";
  readonly value: string;
  /** As written in the policy, e.g. "tag:production". */
  readonly text: string;
}

export interface ChatopsPolicy {
  readonly slack: {
    readonly users: readonly string[];
    /** Undefined: commands are accepted in any channel. */
    readonly channels?: readonly string[];
    /** Undefined: every user in `users` may apply. */
    readonly applyUsers?: readonly string[];
  };
}

export const DEFAULT_MAX_REMOVALS = 25;
export const DEFAULT_MAX_WORKFLOW_CHANGES = 10;
