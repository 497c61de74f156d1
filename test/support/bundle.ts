/** Handlers bundled as SST bundles a Node.js function (esbuild, ESM, minified, with a require shim), loaded as fresh containers. */
import { copyFile, mkdtemp } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type BuildOptions } from "esbuild";

const ROOT = join(import.meta.dirname, "../..");

/** SST's esbuild settings for a function (nodejs.format esm, nodejs.minify on). */
export const SST_BUILD: BuildOptions = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  minify: true,
  logLevel: "silent",
  banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
};

export interface Bundle<H> {
  /** A cold container: the bundle imported afresh, so its module state (caches, clients) starts empty. */
  container(): Promise<H>;
}

let containers = 0;

// Node's own loader (require of an ES module, Node 22.12+), not the test runner's import(): the runner
// would transform the whole bundle again for every container, and what is tested is the bundle as
// Lambda's Node loads it. A container is a copy of the bundle, so that it loads afresh.
const nativeRequire = createRequire(import.meta.url);

export async function bundleHandler<H>(entry: string): Promise<Bundle<H>> {
  const outfile = join(await mkdtemp(join(tmpdir(), "warden-bundle-")), "functions", entry.replace(/^.*\//, "").replace(/\.ts$/, ".mjs"));
  await build({ ...SST_BUILD, entryPoints: [join(ROOT, entry)], outfile });
  return {
    container: async () => {
      const copy = outfile.replace(/\.mjs$/, `-${++containers}.mjs`);
      await copyFile(outfile, copy);
      return (nativeRequire(copy) as { handler: H }).handler;
    },
  };
}
