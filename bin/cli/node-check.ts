/**
 * Imported first by bin/warden.ts, so it runs before any library loads: on an older Node than they
 * need (undici 8: 22.19), the built CLI would fail while loading, with an error that names nothing.
 */
import { writeSync } from "node:fs";

/** The oldest Node Warden runs on: package.json's `engines` says the same. */
export const MINIMUM_NODE = "22.19.0";

const rank = (version: string) => version.split(".").reduce((sum, part) => sum * 1000 + Number.parseInt(part, 10), 0);

if (rank(process.versions.node) < rank(MINIMUM_NODE)) {
  writeSync(2, `warden: Node.js ${process.versions.node} is too old: Warden needs ${MINIMUM_NODE} or later. Run it with Node 22 or 24.\n`);
  process.exit(1);
}
