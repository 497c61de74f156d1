/**
 * sst.config.ts built and evaluated as SST 4.17 does it (pkg/js/js.go, pkg/project/project.go and
 * run.go), with esbuild's JS API in place of its Go one: first a bundle that only evaluates `app()`,
 * in which a static import at the top of sst.config.ts is refused; then the bundle of `run()`, with the
 * platform's globals (`aws`, `sst`) prepended to every file it loads and its `$` shim injected — here
 * our stand-in platform (test/sst/platform) over the real @pulumi/aws, run under Pulumi's mocks by
 * evaluate.ts in a process of its own, as SST runs it in one. Nothing downloads or reaches AWS.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { promisify } from "node:util";
import * as esbuild from "esbuild";
import { inject } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const PLATFORM = join(import.meta.dirname, "platform");
// A folder per test file (each loads this module afresh): one file's removeBuilds() never takes the bundles of another running beside it.
const OUT = join(ROOT, ".sst", `test-build-${randomUUID()}`);
const CONFIG = join(ROOT, "sst.config.ts");

/** SST's own message for ErrTopLevelImport (cmd/sst/mosaic/errors/errors.go). */
export const TOP_LEVEL_IMPORT =
  'Your sst.config.ts has top level imports - this is not allowed. Move imports inside the function they are used and do a dynamic import: `const mod = await import("./mod")`';

const BANNER = `import { createRequire as topLevelCreateRequire } from 'module';
const require = topLevelCreateRequire(import.meta.url);
import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"
const __filename = topLevelFileUrlToPath(import.meta.url)
const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))
`;

const EXTERNAL = ["@pulumi/*", "undici", "@pulumiverse/*", "@sst-provider/*", "@aws-sdk/*", "esbuild", "archiver", "glob", "vite"];

interface BuildOptions {
  code: string;
  outfile: string;
  /** The platform's imports, prepended to every file loaded; "" for the app() build, where imports are refused. */
  globals: string;
  banner?: string;
  define?: Record<string, string>;
  inject?: string[];
}

/** pkg/js Build: one bundle from `code`, with SST's two plugins. */
async function build(opts: BuildOptions): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  let topLevelImport = false;
  const result = await esbuild.build({
    banner: { js: BANNER + (opts.banner ?? "") },
    mainFields: ["module", "main"],
    format: "esm",
    platform: "node",
    stdin: { contents: opts.code, resolveDir: ROOT, sourcefile: "eval.ts", loader: "ts" },
    plugins: [
      {
        name: "DisallowImports",
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (opts.globals === "" && basename(args.importer) === "sst.config.ts" && args.kind === "import-statement") {
              topLevelImport = true;
              return { errors: [{ text: TOP_LEVEL_IMPORT }] };
            }
            return undefined;
          });
        },
      },
      {
        name: "InjectGlobals",
        setup(b) {
          b.onLoad({ filter: /\.(js|ts|jsx|tsx)$/ }, (args) => {
            // SST's platform lives under .sst and gets no globals; so does our stand-in of it.
            if (args.path.startsWith(join(ROOT, ".sst")) || args.path.startsWith(PLATFORM)) return undefined;
            return { contents: `${opts.globals}\n${readFileSync(args.path, "utf8")}`, loader: "default" };
          });
        },
      },
    ],
    external: EXTERNAL,
    define: opts.define,
    inject: opts.inject,
    outfile: opts.outfile,
    bundle: true,
    logLevel: "silent",
  }).catch((err: Error) => {
    throw new Error(topLevelImport ? TOP_LEVEL_IMPORT : err.message);
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join("\n"));
}

/** Removes every bundle built here. */
export function removeBuilds(): void {
  rmSync(OUT, { recursive: true, force: true });
}

export interface SstApp {
  name: string;
  home: string;
  removal?: string;
  protect?: boolean;
}

const run = promisify(execFile);
/** Each build gets a file of its own: test files may build at the same time. */
let builds = 0;

/** What `sst deploy --stage <stage>` learns from app(): the first build, evaluated as SST does (`env` over this process's). */
export async function evaluateApp(stage: string, config = CONFIG, env: Record<string, string | undefined> = {}): Promise<SstApp> {
  const outfile = join(OUT, `app.${stage}.${builds++}.mjs`);
  await build({
    code: `import mod from ${JSON.stringify(config)};
if (mod.stacks || mod.config) { console.log("~v2"); process.exit(0); }
console.log("~j" + JSON.stringify(await mod.app({ stage: $input.stage || undefined })));`,
    outfile,
    globals: "",
    banner: "function $config(input) { return input }",
    define: { $input: JSON.stringify({ stage }) },
  });
  const { stdout } = await run(process.execPath, ["--no-warnings", outfile], { cwd: ROOT, env: programEnv(env) });
  const line = stdout.split("\n").find((l) => l.startsWith("~j"));
  if (!line) throw new Error(`app() printed no app: ${stdout}`);
  return JSON.parse(line.slice(2)) as SstApp;
}

/** The second build: run() with the platform's globals, for `app` on `stage` (`dev`: as `sst dev` builds it). Returns the bundle's path. */
export async function buildRun(app: SstApp, stage: string, config = CONFIG, dev = false): Promise<string> {
  const outfile = join(OUT, `run.${stage}.${builds++}.mjs`);
  await build({
    code: `import { run } from ${JSON.stringify(join(PLATFORM, "run.ts"))};
import mod from ${JSON.stringify(config)};
export default await run(mod.run);`,
    outfile,
    globals: `import * as aws from "@pulumi/aws";\nimport * as sst from ${JSON.stringify(join(PLATFORM, "components.ts"))};`,
    define: { $app: JSON.stringify({ ...app, stage }), $dev: String(dev) },
    inject: [join(PLATFORM, "globals.ts")],
  });
  return outfile;
}

export interface Deployed {
  /** Every resource Pulumi was asked to create, in order: its type token, name, resolved inputs and whether it is kept on delete. */
  resources: { type: string; name: string; inputs: Record<string, unknown>; retainOnDelete?: boolean }[];
  outputs: Record<string, unknown>;
  /** What the program wrote to stderr: Pulumi's warnings (a deprecated resource, for one). */
  warnings: string;
}

/** The environment a deploy's program sees: this process's, with `env` over it (undefined: unset). */
const programEnv = (env: Record<string, string | undefined>) => Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined));
/** With the run's compile cache (test/support/global-setup.ts): each evaluation loads @pulumi/pulumi and @pulumi/aws anew. */
const evaluate = (args: string[], env: Record<string, string>) =>
  run(process.execPath, ["--no-warnings", join(import.meta.dirname, "evaluate.ts"), ...args], { cwd: ROOT, env: { ...env, NODE_COMPILE_CACHE: inject("compileCache") } });

/** Runs a run() bundle under Pulumi's mocks with `env` as the deploy environment; rejects with the program's error. */
export async function evaluateRun(bundle: string, stage: string, env: Record<string, string | undefined>): Promise<Deployed> {
  try {
    const { stdout, stderr } = await evaluate([bundle, stage], programEnv(env));
    const line = stdout.split("\n").find((l) => l.startsWith("~r"));
    if (!line) throw new Error(`the program printed no result: ${stdout}`);
    return { ...(JSON.parse(line.slice(2)) as Omit<Deployed, "warnings">), warnings: stderr };
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr;
    throw new Error(stderr?.trim() || (err as Error).message);
  }
}

/** Runs a run() bundle under each of `envs` in turn, in one process (evaluate.ts --refusals): each run's error message, or null where it was not refused. */
export async function refusedRuns(bundle: string, stage: string, envs: Record<string, string | undefined>[]): Promise<(string | null)[]> {
  const file = join(OUT, `refusals.${builds++}.json`);
  writeFileSync(file, JSON.stringify(envs.map(programEnv)));
  const { stdout } = await evaluate([bundle, stage, "--refusals", file], process.env as Record<string, string>);
  const line = stdout.split("\n").find((l) => l.startsWith("~e"));
  if (!line) throw new Error(`the programs printed no result: ${stdout}`);
  return JSON.parse(line.slice(2)) as (string | null)[];
}
