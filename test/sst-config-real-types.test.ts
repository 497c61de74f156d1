/**
 * sst.config.ts type-checked against SST's real platform types (platform/src, read out of the installed
 * sst binary: support/sst/real-platform.ts) instead of the stand-in that sst-globals.d.ts points it at:
 * the stand-in accepts what it was written to accept, the real components may not (a transform's type,
 * an argument a Workflow does not take). `sst install`
 * would write .sst/platform/config.d.ts: a file that imports ./src/global.d.ts and declares the `aws`
 * provider global and `$config`; this test writes the same. The config is copied with its first line
 * (the reference to sst-globals.d.ts, which declares the stand-in's `sst`) pointing at the real one, and
 * its run()-time imports pointing back at the project.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { realPlatform, SST_BINARY } from "./support/sst/real-platform.ts";

const ROOT = join(import.meta.dirname, "..");

const CONFIG_DTS = `import "./src/global.d.ts";
import { AppInput, App, Config } from "./src/config";
import * as _aws from "@pulumi/aws";
declare global {
  // @ts-expect-error
  export import aws = _aws;
  export const $config: (input: Omit<Config, "app"> & { app(input: AppInput): Omit<App, "providers"> }) => Config;
}
`;

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "sst-real-types-"));
  cpSync(realPlatform(), join(dir, "platform"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "platform/node_modules"));
  writeFileSync(join(dir, "platform/config.d.ts"), CONFIG_DTS);
  return dir;
}

/** tsc's errors in `config` (the copy of sst.config.ts, edited by `edit`), as "line: message". */
function typeErrors(dir: string, edit: (source: string) => string = (s) => s): string[] {
  const source = readFileSync(join(ROOT, "sst.config.ts"), "utf8").split("\n");
  expect(source[0]).toBe('/// <reference path="./sst-globals.d.ts" />');
  source[0] = '/// <reference path="./platform/config.d.ts" />';
  const copy = edit(source.join("\n").replaceAll('import("./', `import("${ROOT}/`));
  writeFileSync(join(dir, "sst.config.ts"), copy);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "es2022", lib: ["esnext"], module: "esnext", moduleResolution: "bundler", types: ["node"], typeRoots: [join(ROOT, "node_modules/@types")], strict: true, skipLibCheck: true, noEmit: true, allowImportingTsExtensions: true },
      files: ["sst.config.ts"],
    }),
  );
  let out = "";
  try {
    execFileSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  } catch (e) {
    out = String((e as { stdout: string }).stdout);
  }
  // Errors inside the platform's own files are modules it imports that Warden does not install
  // (@pulumi/cloudflare, @pulumi/random, …): none of them is in a type sst.config.ts uses.
  return out.split("\n").filter((l) => l.startsWith("sst.config.ts(")).map((l) => l.replace(/^sst\.config\.ts\((\d+),\d+\): /, "$1: "));
}

describe.skipIf(!existsSync(SST_BINARY))("sst.config.ts against SST's real component types", () => {
  const dir = workspace();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("type-checks: every component, argument and value it uses is one the real sst.aws.* accept", () => {
    expect(typeErrors(dir)).toEqual([]);
  }, 120_000);

  it("the check bites: arguments the real types refuse are reported", () => {
    const errors = typeErrors(dir, (s) =>
      s
        .replace('url: { authorization: "none", cors: false }', 'url: { authorization: "public", cors: false }')
        .replace('retention: quantity(settings.executionRetentionDays, "day"),', 'retention: quantity(settings.executionRetentionDays, "day"), retries: 0,')
        .replace('timeout: "10 seconds"', 'timeout: "1 hour"'),
    );
    expect(errors.join("\n")).toMatch(/"public"/);
    expect(errors.join("\n")).toMatch(/'retries' does not exist/);
    expect(errors.join("\n")).toMatch(/"1 hour"/);
  }, 120_000);
});
