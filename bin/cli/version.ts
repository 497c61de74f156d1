/** The package's version, for `warden --version`. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of the nearest package.json above this module that has one: found from wherever the
 * CLI runs (bin/ as TypeScript, a built dist/, an installed package), not from a fixed relative path.
 */
export function packageVersion(from: string = import.meta.url): string {
  for (let dir = dirname(fileURLToPath(from)); ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const { version } = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown };
      if (typeof version === "string") return version;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json with a version above ${fileURLToPath(from)}`);
  }
}
