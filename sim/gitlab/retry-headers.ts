import type { Reply } from "./http.ts";

/** How a 429 tells the client when to come back; GitLab.com sometimes says nothing at all. */
export type RetryStyle = "retry-after" | "retry-after-date" | "reset-only" | "none";

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

export function retryHeaders(style: RetryStyle, resetAtMs: number, now: number): Record<string, string> {
  switch (style) {
    case "retry-after":
      return { "retry-after": String(seconds(resetAtMs - now)) };
    case "retry-after-date":
      // HTTP dates have whole seconds: round up, never promise a time before the reset.
      return { "retry-after": new Date(Math.ceil(resetAtMs / 1000) * 1000).toUTCString() };
    case "reset-only":
      return { "ratelimit-reset": String(Math.ceil(resetAtMs / 1000)) };
    case "none":
      return {};
  }
}

export const tooManyRequests = (headers: Record<string, string>): Reply => ({ status: 429, headers, body: "Retry later" });
