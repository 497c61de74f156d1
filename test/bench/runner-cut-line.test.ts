/**
 * run-process.ts: a runner that prints no result resolves to one with the error and NaN times. A
 * runner whose last line on stdout is a log line cut short (the durable row's function writes its JSON
 * log lines there, and the row's timeout kills it wherever it is) is one of them, not a SyntaxError
 * thrown from the child's "close" handler that would take the whole bench down.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../bin/bench/run-process.ts";

describe("a runner killed in the middle of a log line", () => {
  it("resolves to a result with its error, not a SyntaxError thrown from the close handler", async () => {
    const runner = join(tmpdir(), "cut-log-line.mjs");
    // A Powertools log line, as the Enforce function writes them, cut where the process died.
    writeFileSync(runner, `process.stdout.write('{"level":"INFO","message":"examined 1200 of 20000 groups","timestamp":"2026-12-01T0'); process.exit(1);`);
    const thrown: unknown[] = [];
    const catcher = (err: unknown) => thrown.push(err);
    process.prependListener("uncaughtException", catcher);
    try {
      const outcome = await Promise.race([runProcess(runner, [], { nodeOptions: "", timeoutS: 10 }), new Promise<"no result">((resolve) => setTimeout(() => resolve("no result"), 5_000).unref())]);
      expect({ outcome, thrown: thrown.map(String) }).toEqual({ outcome: expect.objectContaining({ error: expect.stringContaining("its last line on stdout is no result") }), thrown: [] });
    } finally {
      process.removeListener("uncaughtException", catcher);
    }
  });
});
