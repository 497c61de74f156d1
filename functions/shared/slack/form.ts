/**
 * Middleware: parses a slash command's form (application/x-www-form-urlencoded) into `event.body`,
 * the way middy's body parsers do, keeping the fields Warden uses. Runs after the signature check,
 * which needs the raw body.
 */
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { z } from "zod";
import { check, describeIssues } from "../lambda/issues.ts";
import { HttpStatusError } from "../lambda/http-status-error.ts";
import { rawBody } from "../lambda/raw-body.ts";

const SlackCommandSchema = z.object({
  command: z.string().min(1),
  text: z.string(),
  user_id: z.string().min(1),
  user_name: z.string().default(""),
  channel_id: z.string().min(1),
  team_id: z.string().default(""),
  // An Enterprise Grid org's: its users have one id in all its workspaces (command-rate.ts counts them within it).
  enterprise_id: z.string().optional(),
  response_url: z.string().min(1),
});

export type SlackCommand = z.infer<typeof SlackCommandSchema>;

/**
 * The most a slash command's form (or Slack's ssl_check) may weigh. Slack cuts a message's text at 40,000
 * characters, and a form percent-encodes each in at most 9 bytes (CJK text: a pipeline variable's value is
 * one word of any characters): 360 KB, with the form's other fields well under this. Anything larger is
 * refused before it is read (chatops.ts); what is under it, unsigned, costs a container a few milliseconds
 * to parse and hash before its 401 (Lambda's whole 6 MB, about a hundred times a small body's CPU).
 */
export const MAX_FORM_BYTES = 512 * 1024;

export type SlackCommandEvent = Omit<APIGatewayProxyEventV2, "body"> & { body: SlackCommand };

export function slackCommandForm(): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before(request) {
      const type = request.event.headers?.["content-type"] ?? "";
      if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) throw new HttpStatusError(415, "Unsupported Media Type");
      const parsed = check(SlackCommandSchema, Object.fromEntries(new URLSearchParams(rawBody(request.event).toString("utf8"))));
      if (!parsed.success) throw new HttpStatusError(400, `Bad Request: ${describeIssues(parsed.error)}`);
      (request.event as unknown as SlackCommandEvent).body = parsed.data;
    },
  };
}
