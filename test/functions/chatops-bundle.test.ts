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
import { SST_BUILD } from "../support/bundle.ts";

const ROOT = join(import.meta.dirname, "../..");

async function bundledInputs(entry: string): Promise<string[]> {
  const { metafile } = await build({ ...SST_BUILD, entryPoints: [join(ROOT, entry)], write: false, outdir: "out", metafile: true });
  // Only what reaches the output: esbuild also lists modules it read and then dropped.
  return Object.values(metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

/**
 * What a cold start loads: the modules reached from the entry by static imports. A dynamic import()
 * is bundled too, but evaluated only when it runs (a policy in a GitLab repository needs the GitLab client).
 */
async function loadedAtStart(entry: string): Promise<{ loaded: string[]; lazy: string[] }> {
  const { metafile } = await build({ ...SST_BUILD, entryPoints: [join(ROOT, entry)], write: false, outdir: "out", metafile: true });
  const loaded = new Set<string>();
  const lazy: string[] = [];
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const i of metafile.inputs[path]?.imports ?? []) {
      if (i.kind === "dynamic-import") {
        if (!i.external) lazy.push(i.path);
      } else if (!i.external) visit(i.path);
    }
  };
  visit(entry);
  return { loaded: [...loaded], lazy };
}

/**
 * Of lib/jobs, only report/index.ts (errorText) and escape.ts (escapeMrkdwn: an acknowledgement quotes the
 * requester's ref); /warden exempt's grammar checks requests with lib/policy's exemption-request.ts.
 */
const JOBS = /^lib\/jobs\/(?!report\/index\.ts$|escape\.ts$)/;
const CLIENTS = new RegExp(`${JOBS.source}|^lib\\/(http|paging|gitlab|n8n)\\/`);

describe("the chat-ops bundle", () => {
  it("loads neither the jobs, the GitLab and n8n clients, nor undici at a cold start", async () => {
    const { loaded, lazy } = await loadedAtStart("functions/chatops.ts");
    expect(loaded).toContain("functions/chatops.ts");
    expect(loaded.filter((path) => CLIENTS.test(path))).toEqual([]);
    expect(loaded.filter((path) => path.includes("node_modules/undici/"))).toEqual([]);
    // The one lazy part of ours: the policy from a GitLab repository, with the clients (never the jobs).
    expect(lazy.filter((path) => !path.includes("node_modules/"))).toEqual(["functions/shared/config/policy-repository.ts"]);
    const inputs = await bundledInputs("functions/chatops.ts");
    expect(inputs.filter((path) => JOBS.test(path))).toEqual([]);
  });

  it("while the worker, which posts the result, does carry undici (so the check above can fail)", async () => {
    expect((await bundledInputs("functions/worker.ts")).some((path) => path.includes("node_modules/undici/"))).toBe(true);
  });
});
