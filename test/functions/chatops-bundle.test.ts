/**
 * What the chat-ops bundle carries, bundled as SST does (esbuild, ESM): chat-ops answers Slack within
 * 3 seconds, a cold start included, and loads nothing it does not run. It starts jobs but runs none, and
 * never posts to Slack itself (the worker does), so neither the jobs, their API clients, nor an HTTP
 * client belong in it. An import from a module's index, rather than the file that defines what is
 * needed, is the usual way one creeps back in.
 */
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { SST_BUILD } from "./bundle.ts";

const ROOT = join(import.meta.dirname, "../..");

async function bundledInputs(entry: string): Promise<string[]> {
  const { metafile } = await build({ ...SST_BUILD, entryPoints: [join(ROOT, entry)], write: false, outdir: "out", metafile: true });
  // Only what reaches the output: esbuild also lists modules it read and then dropped.
  return Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

describe("the chat-ops bundle", () => {
  it("carries neither the jobs, the GitLab and n8n clients, nor undici", async () => {
    const inputs = await bundledInputs("functions/chatops.ts");
    expect(inputs).toContain("functions/chatops.ts");
    expect(inputs.filter((path) => /^lib\/(jobs\/(?!report\.ts$)|http\/|paging\/|gitlab\/|n8n\/)/.test(path))).toEqual([]);
    expect(inputs.filter((path) => path.includes("node_modules/undici/"))).toEqual([]);
  });

  it("while the worker, which posts the result, does carry undici (so the check above can fail)", async () => {
    expect((await bundledInputs("functions/worker.ts")).some((path) => path.includes("node_modules/undici/"))).toBe(true);
  });
});
