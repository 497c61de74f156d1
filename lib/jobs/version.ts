/**
 * Warden's version, for reports. A bundle (the CLI's dist/warden.js, the Lambda functions) carries no
 * package.json: its build writes the version in (esbuild `define`). Run from the sources, it is the
 * repository's package.json, two folders above lib/jobs/.
 */
import { readFileSync } from "node:fs";

declare const __WARDEN_VERSION__: string | undefined;

export const WARDEN_VERSION: string = typeof __WARDEN_VERSION__ === "string" ? __WARDEN_VERSION__ : fromSources();

function fromSources(): string {
  try {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof version === "string" ? version : "unknown";
  } catch {
    return "unknown";
  }
}
