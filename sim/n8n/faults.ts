import { STATUS_CODES } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { message, type Reply } from "./reply.ts";
import type { N8nFault } from "./types.ts";

/** Takes one use of the first pending fault that matches the route, dropping it once used up. */
export function takeFault(faults: N8nFault[], routeKey: string): N8nFault | undefined {
  const index = faults.findIndex((f) => f.times > 0 && (f.route === undefined || f.route === routeKey));
  const fault = faults[index];
  if (!fault) return undefined;
  fault.times -= 1;
  if (fault.times <= 0) faults.splice(index, 1);
  return fault;
}

/** What a fault does to the request: answer for it, drop the connection, or (delay) let it carry on late. */
export async function applyFault(fault: N8nFault): Promise<Reply | "drop" | undefined> {
  switch (fault.kind) {
    case "status":
      return message(fault.status, STATUS_CODES[fault.status] ?? "Error");
    case "429":
      // n8n Cloud's rate limiter; self-hosted n8n has none.
      return { ...message(429, "retry after 1"), headers: { "Retry-After": "1" } };
    case "drop":
      return "drop";
    case "delay":
      await sleep(fault.ms);
      return undefined;
  }
}
