/**
 * Each answer's body is bounded (lib/http/answer-size.ts, 64 MiB), but a run reads up to 16 at once: a
 * server or proxy answering each of them with tens of MB (under the bound, and of few JSON values, so
 * json-size.ts passes them) had them all held at once, 1.2 GB of buffers for 16 of 40 MB, past the 1,024 MB
 * a function has by default (SST's), which then ends with no report and no `job failed` line, every run
 * again (the events review). Now the bytes being received at once are bounded together: the answer whose bytes
 * would go past is not read further (a failure another try may not meet, as after a lost body), the others read.
 */
import { describe, expect, it } from "vitest";
import { serve } from "../support/server.ts";
import { inSmallHeap } from "../support/small-heap.ts";

const client = new URL("../../lib/http/index.ts", import.meta.url).href;
const MB = 1024 * 1024;

/** `requests` GETs at once from a process with the functions' heap settings, each answered with a JSON object of `mb` MB: what each came to, and how the process ended. */
async function atOnce(requests: number, mb: number, declared: boolean): Promise<{ out: string; code: number | null; signal: string | null }> {
  const filler = Buffer.alloc(mb * MB, "a");
  const s = await serve((_req, res) => {
    const [head, tail] = ['{"id":1,"name":"', '"}'];
    res.writeHead(200, { "content-type": "application/json", ...(declared && { "content-length": String(head.length + filler.length + tail.length) }) });
    res.write(head);
    res.write(filler);
    res.end(tail);
  });
  const script = `
    const { createHttpClient, RateLimiterRegistry } = await import(${JSON.stringify(client)});
    const http = createHttpClient({ origin: ${JSON.stringify(s.url)}, credentials: { "PRIVATE-TOKEN": "glpat-answers-at-once-0123456789" }, limiters: new RateLimiterRegistry(), retry: { maxRetries: 0 } });
    const get = (i) => http.send({ method: "GET", url: new URL("/api/v4/groups/" + i, ${JSON.stringify(s.url)}), route: "GET /groups/:id", expect: "json" }).then((r) => "read " + r.json.name.length, (e) => e.name + ": " + e.message.slice(0, 200));
    const outcomes = await Promise.all(Array.from({ length: ${requests} }, (_, i) => get(i)));
    console.log(JSON.stringify({ outcomes, peakMB: Math.round(process.resourceUsage().maxRSS / 1024) }));
  `;
  try {
    return await inSmallHeap(script);
  } finally {
    await s.close();
  }
}

describe("answers read at once", () => {
  it.each([
    ["with their lengths said", true],
    ["sent chunked, their lengths unsaid", false],
  ])("16 of 40 MB each, as many as a run reads at once (%s): some read, the rest refused by name, the process's memory within a Lambda's", async (_, declared) => {
    const run = await atOnce(16, 40, declared);
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    const { outcomes, peakMB } = JSON.parse(run.out) as { outcomes: string[]; peakMB: number };
    // Before: some 800 MB at the peak of the process, held at once.
    expect(peakMB).toBeLessThan(512);
    expect(outcomes.filter((o) => o === `read ${40 * MB}`).length).toBeGreaterThanOrEqual(1);
    const refused = outcomes.filter((o) => !o.startsWith("read "));
    expect(refused.length).toBeGreaterThanOrEqual(8);
    // Not this answer's size but what else was being read: a NetworkError, which lib/http's retry tries again for a GET (none here).
    for (const o of refused) expect(o).toMatch(/^NetworkError: GET \/api\/v4\/groups\/\d+ failed: its answer was not read further, the answers being read at the same time coming to more than 67\.1 MB$/);
  }, 60_000);

  it("16 answers of 1 MB each are all read", async () => {
    const run = await atOnce(16, 1, false);
    expect((JSON.parse(run.out) as { outcomes: string[] }).outcomes).toEqual(Array.from({ length: 16 }, () => `read ${MB}`));
  }, 60_000);
});
