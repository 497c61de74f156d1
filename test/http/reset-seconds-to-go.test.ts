/**
 * `RateLimit-Reset` in the IETF draft's form, seconds until the window ends, as Kong's rate-limiting
 * plugin and express-rate-limit's `standardHeaders` write it in front of GitLab or n8n. The rate
 * limiter's budget once took every reset for a Unix time: "1" was 1970, a window long over, so a spent
 * budget ("0 left, 1 s to go") was rolled over into a fresh one and the requests went on into 429s
 * (14 of them here, against none for the same budget written as a Unix time; a hostile review's
 * finding). Both readings are one now (retry-delay.ts, rateLimitResetAt).
 */
import pMap from "p-map";
import { afterEach, expect, it } from "vitest";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { scriptedServer, json, type ScriptedServer } from "../support/server.ts";

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

const LIMIT = 5;
const WINDOW_MS = 1_000;

/** A gateway's fixed window: LIMIT requests a window, its budget on every answer, the reset written by `reset`. */
async function gateway(reset: (endsAt: number) => string) {
  let windowStart = Date.now();
  let used = 0;
  let refused = 0;
  server = await scriptedServer((_req, res) => {
    const now = Date.now();
    if (now >= windowStart + WINDOW_MS) {
      windowStart += Math.floor((now - windowStart) / WINDOW_MS) * WINDOW_MS;
      used = 0;
    }
    const endsAt = windowStart + WINDOW_MS;
    const headers = { "ratelimit-limit": String(LIMIT), "ratelimit-reset": reset(endsAt) };
    if (used >= LIMIT) {
      refused++;
      json(res, 429, { message: "API rate limit exceeded" }, { ...headers, "ratelimit-remaining": "0", "retry-after": String(Math.max(1, Math.ceil((endsAt - now) / 1000))) });
      return;
    }
    used++;
    json(res, 200, { id: 1 }, { ...headers, "ratelimit-remaining": String(LIMIT - used) });
  });
  return { refused: () => refused };
}

async function run(reset: (endsAt: number) => string): Promise<number> {
  const { refused } = await gateway(reset);
  const http = createHttpClient({ origin: server!.url, credentials: { "PRIVATE-TOKEN": "t" }, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  // One request first, as a run's first read is: it shows the budget before the rest go.
  const send = () => http.send({ method: "GET", url: new URL(`${server!.url}/api/v4/projects/1`), route: "GET /projects/:id", expect: "json" });
  await send();
  await pMap(Array.from({ length: 24 }, (_, i) => i), send, { concurrency: 8 });
  const n = refused();
  await server!.close();
  server = undefined;
  return n;
}

it("a budget whose RateLimit-Reset is written as seconds to go (a gateway's) is kept to, as one written as a Unix time is: not spent into 429s", async () => {
  const unixTime = await run((endsAt) => String(Math.ceil(endsAt / 1000)));
  const secondsToGo = await run((endsAt) => String(Math.max(1, Math.ceil((endsAt - Date.now()) / 1000))));
  expect(secondsToGo, "the same budget, written the other way the headers are written, costs no more 429s").toBeLessThanOrEqual(unixTime + 1);
}, 60_000);
