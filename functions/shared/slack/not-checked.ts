/**
 * The worker's reply to a command that failed before the policy let its caller run it: nothing of why.
 * The error quotes the policy, GitLab or a proxy, and with the policy in a repository anyone in the
 * workspace gets this far (chat-ops cannot judge them); the function's log has it.
 */
import { errorText } from "../../../lib/jobs/index.ts";
import { logger } from "../lambda/logger.ts";
import type { JobRequest } from "../runs/job-request.ts";
import { ephemeral, type TextMessage } from "./reply.ts";

export function notChecked(request: JobRequest, err: unknown): TextMessage {
  logger.error("chat-command not run: it could not be checked against the policy", { job: request.job, error: errorText(err) });
  return ephemeral(`:x: Warden could not check \`${request.job}\` against its policy, so nothing was run (the function's log says why).`);
}
