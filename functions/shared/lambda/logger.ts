/** One Powertools Logger per process: JSON lines with the Lambda context, and the jobs' audit sink. */
import { Logger } from "@aws-lambda-powertools/logger";
import { issuedAwsCredentials } from "../../../lib/config/aws-credentials.ts";
import { redactOutput, registerSecret } from "../../../lib/redact/index.ts";
// lib/jobs/report/ (its own face), not the jobs' index: chat-ops logs too, and must not load the jobs and their clients.
import { exitCode, type AuditSink, type Report } from "../../../lib/jobs/report/index.ts";

/**
 * The function's role credentials, which Lambda puts in its environment: the session token goes out in a
 * header of every AWS request, and an endpoint quoting the request in its error (a proxy, a VPC endpoint)
 * would have the SDK's message carry it into a log line, where whoever may read the logs could act as the
 * role (and read the jobs' secret). Registered as every function loads this module, before any line.
 */
for (const credential of issuedAwsCredentials(process.env)) registerSecret(credential);

/**
 * Every string of every line passes lib/redact as the line is serialised: the one redaction point
 * for the functions' logs, whatever a message or field quotes (a server's answer, an error).
 */
export const logger = new Logger({ serviceName: "warden", jsonReplacerFn: (_key, value) => (typeof value === "string" ? redactOutput(value) : value) });

/** One line per action a job takes (a share removed, a workflow switched, a pipeline started). */
export const audit: AuditSink = { info: (message, fields) => logger.info(message, fields) };

/**
 * A finished job's outcome without its action list (the audit lines have those): info when in policy
 * or a dry run found work, warn when the guard tripped, error when something failed or was left undone.
 */
export function logReport(report: Report<{ status: string }, object>, fields: Record<string, unknown> = {}): void {
  const code = exitCode(report);
  const level = code === 1 ? "error" : code === 3 ? "warn" : "info";
  const { job, dryRun, summary, stats, warnings } = report;
  logger[level]("job finished", { job, dryRun, exitCode: code, summary, stats, warnings, ...fields });
}
