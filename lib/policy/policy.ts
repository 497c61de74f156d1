import type { AccessLevelName } from "./access-levels.ts";

/** The validated, compiled policy that parsePolicy returns: globs come compiled, defaults filled in. */
export interface Policy {
  readonly version: 1;
  /** The text it was parsed from (a saved plan carries it, to judge again by exactly this policy). */
  readonly text: string;
  /** Where it came from and the SHA-256 of its text: every report names the policy it was judged by. */
  readonly source: PolicySource;
  readonly gitlab?: GitlabPolicy;
  readonly pipelines?: PipelinesPolicy;
  readonly n8n?: N8nPolicy;
  readonly chatops?: ChatopsPolicy;
  readonly notify?: NotifyPolicy;
}

/**
 * A policy's identity, as reports, audit lines and plan files record it: a file by its path, a
 * policy read from a GitLab repository by project, path, ref and the commit it was read at.
 */
export type PolicySource =
  | { readonly source: "file"; readonly path: string; readonly sha256: string }
  | {
      readonly source: "gitlab";
      /** As configured: an id or a path. */
      readonly project: string;
      /** The id it was read from (absent in plans and records written before ids were recorded). */
      readonly projectId?: number;
      readonly path: string;
      readonly ref: string;
      readonly commitId: string;
      readonly sha256: string;
    };

/** Where a policy's text came from, before it is hashed (parsePolicy adds the SHA-256). */
export type PolicyOrigin = DistributiveOmit<PolicySource, "sha256">;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A glob as written in the policy, with its matcher compiled once at parse time. */
export interface Glob {
  readonly pattern: string;
  readonly matches: (subject: string) => boolean;
}

export interface GitlabPolicy {
  /** Undefined: every project and group the token can see is governed. */
  readonly scope?: {
    readonly groups: readonly string[];
    /** Whether a project or group path is one of `groups` or lies under one (whole segments, any case). */
    readonly includes: (path: string) => boolean;
    /** Per-group onStray and grace (stray.ts says which applies); [] when none. */
    readonly overrides: readonly ScopeOverride[];
  };
  readonly shares: {
    readonly allow: readonly ShareAllowRule[];
    readonly exempt: readonly ShareExemption[];
    /** What happens to a stray share: removed (default), noticed first, or only reported. */
    readonly onStray: OnStray;
    /** How long a notice stands before its share is removed (required with notify). */
    readonly grace?: Grace;
    readonly notices?: NoticesPolicy;
  };
  /** `unmatchedRules`: whether an applying run refuses (the default) or only warns while a rule matches nothing. */
  readonly guard: { readonly maxRemovals: number; readonly unmatchedRules: UnmatchedRules };
  /** Who added each stray share is read from audit events this many days back (0: off). */
  readonly attribution: { readonly days: number };
  /** `warden watch` and the Watch function refuse to start when their audit-event polling would cost more. */
  readonly watch: { readonly maxRequestsPerHour: number };
  /** The Events function's runs (one per subject of GitLab's events) send at most about this many requests an hour. */
  readonly events: { readonly maxRequestsPerHour: number };
}

export type OnStray = "remove" | "notify" | "report";

/** A grace period as written (`7d`, `36h`), in hours. */
export interface Grace {
  readonly text: string;
  readonly hours: number;
}

/** A scope group (a plain path) whose subjects, and everything below, get their own onStray or grace. */
export interface ScopeOverride {
  readonly group: string;
  readonly onStray?: OnStray;
  readonly grace?: Grace;
}

/** Where notices live: issues in `project`, labelled `warden::notice` and `labels`. */
export interface NoticesPolicy {
  /**
   * A project's id (its digits), or its full path, like security/access-notices. By id, nobody can take
   * the notices over: a path freed by a rename is anyone's to create a project at, who then reads every
   * new notice and sets its due date.
   */
  readonly project: string;
  readonly labels: readonly string[];
  /** Whether a notice is assigned to the person who added the share, where attribution names them. */
  readonly assignAdder: boolean;
  /**
   * The ids of users whose notices are Warden's besides the token's user: those of the tokens Warden had
   * before (an administrator's token rotated to another's). Notices are known by their author alone (anyone
   * who can open an issue in the project can write a marker), so a run under another user's token found
   * none of the earlier ones: it opened a second notice for every share, each with a new grace.
   */
  readonly authors: readonly number[];
}

export const UNMATCHED_RULES = ["refuse", "warn"] as const;
export type UnmatchedRules = (typeof UNMATCHED_RULES)[number];

/**
 * Which shares a rule applies to: with neither `projects` nor `groups`, shares of both kinds
 * anywhere in scope; otherwise project shares on `projects` and group shares made by `groups`.
 */
export interface ShareAllowRule {
  /** Matched against the full path of the group the share grants access to (the invited group). */
  readonly group: Glob;
  /** Matched against the shared project's full path. */
  readonly projects?: readonly Glob[];
  /** Matched against the full path of the group that shares itself. */
  readonly groups?: readonly Glob[];
  readonly maxAccess?: AccessLevelName;
  /**
   * With `maxAccess`: the custom roles (`member_role_id`) a share may carry. A custom role adds
   * permissions to its base level, so under `maxAccess` a share with any other role is stray.
   */
  readonly memberRoles?: readonly number[];
  /** Days (1..3650, written `90d`): the share must expire no later than that many UTC days from today. */
  readonly expiresWithin?: number;
}

/**
 * Exactly one of `project` (shares of matching projects) or `group` (shares made by matching groups);
 * with `sharedWith`, only their shares with matching (invited) groups.
 */
export interface ShareExemption {
  readonly project?: Glob;
  readonly group?: Glob;
  readonly sharedWith?: Glob;
  /** YYYY-MM-DD: the last UTC day on which the exemption applies. */
  readonly until?: string;
  /** Why, as written: for the people reading the policy (Warden only shows it). */
  readonly reason?: string;
}

export interface PipelinesPolicy {
  readonly allow: readonly PipelineRule[];
}

export interface PipelineRule {
  readonly project: Glob;
  readonly refs: readonly Glob[];
  /** Names of the variables a request may set. */
  readonly variables: readonly string[];
  /** Whether a ref GitLab does not protect may be started too (default false: protected branches and tags only). */
  readonly unprotected: boolean;
}

export interface N8nPolicy {
  readonly workflows: {
    readonly keepActive: readonly WorkflowSelector[];
    readonly unlisted: "deactivate" | "report";
    /** `publish`: activate even where n8n keeps versions (2.x), making the latest saved version live; `activate` reports those. */
    readonly listedInactive: "activate" | "publish" | "report";
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

/** Which scheduled and console runs are summarised in Slack: every one, those that changed (or would change) something or had a problem, or problems only. */
export const NOTIFY_LEVELS = ["always", "changes", "problems"] as const;
export type NotifyLevel = (typeof NOTIFY_LEVELS)[number];
export const DEFAULT_NOTIFY_LEVEL: NotifyLevel = "changes";

export interface NotifyPolicy {
  readonly slack: NotifyLevel;
}

/** The policy's `notify.slack`, or its default when the policy has no notify section. */
export function slackNotifyLevel(policy: Policy): NotifyLevel {
  return policy.notify?.slack ?? DEFAULT_NOTIFY_LEVEL;
}

export const DEFAULT_MAX_REMOVALS = 25;
export const DEFAULT_ATTRIBUTION_DAYS = 90;
/** One request a second on average: a twentieth of GitLab.com's 2,000 a minute per user. */
export const DEFAULT_WATCH_MAX_REQUESTS_PER_HOUR = 3600;
/** As much again for the event runs: a flood of events (whoever holds the streaming token sends them) leaves the rest to the sweep. */
export const DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR = 3600;
/** GitLab keeps audit events indefinitely; a bound keeps the listing's cost stated. */
export const MAX_ATTRIBUTION_DAYS = 3650;
export const DEFAULT_MAX_WORKFLOW_CHANGES = 10;
