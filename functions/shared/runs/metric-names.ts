/**
 * The CloudWatch names Warden's run metrics are published under (functions/shared/runs/metrics.ts) and its
 * alarms watch (sst.config.ts): one list, so an alarm cannot watch a metric nobody emits.
 */
export const METRICS_NAMESPACE = "Warden";
export const METRICS_SERVICE = "warden";

export const METRIC = {
  /** 1 for a run that finished without failing or tripping its guard, else 0: the heartbeat's metric. */
  runSucceeded: "RunSucceeded",
  /** 1 for a run that threw, failed an action or left work undone, else 0. */
  runFailed: "RunFailed",
  guardTripped: "GuardTripped",
  runIncomplete: "RunIncomplete",
  actionsFailed: "ActionsFailed",
  straysFound: "StraysFound",
  sharesRemoved: "SharesRemoved",
  removalsFailed: "RemovalsFailed",
  workflowsChanged: "WorkflowsChanged",
  requests: "Requests",
  retries: "Retries",
  rateLimited: "RateLimited",
  duration: "Duration",
  /** Seconds from a share's audit event to its removal: the Watch function's (trigger watch), the stream's (trigger event). */
  secondsToRemoval: "SecondsToRemoval",
  /** Seconds the Watch function's cursor is behind the audit events GitLab has recorded (0: caught up), each poll. */
  watchCursorAge: "WatchCursorAgeSeconds",
  /** Strays a sweep found that the watch or the event stream should have removed (functions/shared/runs/event-coverage.ts). */
  missedByEvents: "MissedByEvents",
  /** 1 when a sweep found no delivery to the Events endpoint for WARDEN_EVENTS_SILENCE_HOURS, else 0 (only with WARDEN_EVENTS=on). */
  eventsSilent: "EventsSilent",
  /** 1 when a run that changed something could not store its report for restore (S3 refused, or no time was left). */
  reportNotStored: "ReportNotStored",
} as const;
