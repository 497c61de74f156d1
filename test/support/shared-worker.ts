/**
 * Runs before every test file (vitest setupFiles), so that a file finds its worker as a process of its
 * own would be, though the "shared" project's workers (vitest.config.ts) run file after file:
 * - no credential registered with lib/redact by the files before (a test's token may be a plain word,
 *   "root" or "jane", which the rest of the process would then see masked);
 * - what its tests started through a support module closed after each (test/support/cleanup.ts).
 */
import { afterEach } from "vitest";
import { processSecrets } from "../../lib/redact/index.ts";
import { afterTest } from "./cleanup.ts";

forgetSecrets();
afterEach(() => afterTest.closeAll());

/** Empties the process's registry: it has no way to forget by design (a credential once held stays masked), so its fields are reached here. */
function forgetSecrets(): void {
  const registry = processSecrets as unknown as { secrets: unknown; matcher: unknown };
  if (!(registry.secrets instanceof Set)) throw new Error("lib/redact's SecretRegistry no longer keeps its credentials in `secrets`: mend test/support/shared-worker.ts");
  registry.secrets.clear();
  registry.matcher = undefined;
}
