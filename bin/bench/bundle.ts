/**
 * The runners are bundled as SST bundles a Lambda, so none pays for Node's TypeScript loader. The
 * durable one takes AWS's local durable runner along, which starts its checkpoint server on a worker
 * thread from checkpoint-server/ beside its own module: that is bundled beside it.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export type Runner = "warden" | "gitbeaker" | "durable";

const ENTRIES: Record<Runner, string> = { warden: "warden-run.ts", gitbeaker: "gitbeaker-run.ts", durable: "durable-run.ts" };

/** Bundles every runner into `dir`; returns each one's file. */
export async function bundleRunners(dir: string): Promise<Record<Runner, string>> {
  const bundle = (entry: string, outfile: string) =>
    build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node24",
      logLevel: "error",
      // Under a name of its own: a bundled module may import createRequire itself.
      banner: { js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);" },
    });
  const out = {} as Record<Runner, string>;
  for (const [runner, entry] of Object.entries(ENTRIES) as [Runner, string][]) {
    out[runner] = join(dir, `${runner}.mjs`);
    await bundle(fileURLToPath(new URL(entry, import.meta.url)), out[runner]);
  }
  await bundle(fileURLToPath(new URL("./checkpoint-server/index.mjs", import.meta.resolve("@aws/durable-execution-sdk-js-testing"))), join(dir, "checkpoint-server", "index.mjs"));
  return out;
}
