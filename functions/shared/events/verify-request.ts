/**
 * Middleware: refuses (401) any request that does not carry the right token, before anything else
 * looks at it (no claim, no body parsed, no GitLab request). Audit event streaming sends its
 * destination's token in X-Gitlab-Event-Streaming-Token, a system hook its secret token in
 * X-Gitlab-Token; each is checked against its own field of the secret, and a deployment without that
 * field refuses that kind of request. Needs normalised (lower-case) header names.
 */
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { createHash, timingSafeEqual } from "node:crypto";
import { HttpStatusError } from "../lambda/http-status-error.ts";

/** Who sent the request: Ultimate's audit event streaming, or a self-managed instance's system hook. */
export type Sender = "stream" | "system-hook";

export type GitLabRequestEvent = APIGatewayProxyEventV2 & { sender: Sender };

export interface GitLabTokens {
  stream: string | undefined;
  systemHook: string | undefined;
}

export interface VerifyGitLabRequestOptions {
  tokens: () => Promise<GitLabTokens>;
  /** Told why a request was refused (the caller only learns that it was). */
  onRefused?: (reason: string) => void;
}

/** Equal in constant time, whatever the lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The sender and its token, or why the request names neither (or both). */
function claimed(headers: Record<string, string | undefined>): { sender: Sender; token: string } | string {
  const stream = headers["x-gitlab-event-streaming-token"];
  const hook = headers["x-gitlab-token"];
  if (stream !== undefined && hook !== undefined) return "both X-Gitlab-Event-Streaming-Token and X-Gitlab-Token";
  if (stream !== undefined) return { sender: "stream", token: stream };
  if (hook !== undefined) return { sender: "system-hook", token: hook };
  return "no X-Gitlab-Event-Streaming-Token or X-Gitlab-Token header";
}

/** The least length of the system hook's token: as long as the verification tokens GitLab generates for streaming. */
const MIN_HOOK_TOKEN = 24;

export function verifyGitLabRequest(opts: VerifyGitLabRequestOptions): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    async before(request) {
      const refuse = (reason: string) => {
        opts.onRefused?.(reason);
        throw new HttpStatusError(401, "Unauthorized");
      };
      const named = claimed(request.event.headers ?? {});
      if (typeof named === "string") return refuse(named);
      const tokens = await opts.tokens();
      const expected = named.sender === "stream" ? tokens.stream : tokens.systemHook;
      const field = named.sender === "stream" ? "gitlabStreamingToken" : "gitlabSystemHookToken";
      if (expected === undefined) return refuse(`the secret has no ${field}: ${named.sender === "stream" ? "streamed audit events" : "system hooks"} are refused`);
      // An administrator types the system hook's token, so it may be a word: every output masks a registered
      // secret whole, and an echoed guess coming back masked would say it is the token. A streaming
      // destination's token is GitLab's, generated, unless whoever created the destination chose it (its API takes one).
      if (named.sender === "system-hook" && expected.length < MIN_HOOK_TOKEN) {
        return refuse(`the secret's ${field} is shorter than ${MIN_HOOK_TOKEN} characters, short enough to guess: system hooks are refused; set a random one of at least ${MIN_HOOK_TOKEN} characters (openssl rand -hex 16) in the system hook and in the secret`);
      }
      if (!tokenMatches(named.token, expected)) return refuse(`the ${named.sender === "stream" ? "X-Gitlab-Event-Streaming-Token" : "X-Gitlab-Token"} does not match the secret's ${field}`);
      (request.event as GitLabRequestEvent).sender = named.sender;
      return undefined;
    },
  };
}
