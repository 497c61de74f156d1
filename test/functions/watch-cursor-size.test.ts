/**
 * Where the cursor's growth ended (test/jobs/watch/gone-sources.test.ts): the Watch function keeps the
 * cursor as one string in one claims-table item (functions/shared/state/watch-cursor.ts), and DynamoDB
 * refuses an item over 400 KB. Some 6,000 subgroups that came and went (about 65 bytes each) brought it
 * there; from then on one more source (a subgroup made, a source whose start failed before) made every
 * write fail: each poll enforced the same events again, stored nothing, and failed, every minute, until
 * someone deleted the item (the second watch review's finding). The positions of sources no longer
 * watched are dropped once past the audit window, and kept to 100.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { dynamoWatchCursor } from "../../functions/shared/state/watch-cursor.ts";
import type { WatchCursor } from "../../lib/jobs/watch/index.ts";
import type { WatchResult } from "../../functions/watch.ts";
import { watchPolicyText, watchWorld } from "../support/watch-world.ts";
import { lambdaContext } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const world = lambdaWorld({ dynamo: true, policy: watchPolicyText() });
let sim: GitLabSim;

beforeEach(async () => {
  vi.resetModules();
  // The jobs' token is Jane's, no administrator: the watch reads acme's and acme/team's own events.
  sim = await startGitLabSim({ dataset: watchWorld(), tokens: { "glpat-sim-admin": { admin: false, username: "jane" } } });
  for (const [name, value] of Object.entries({ GITLAB_URL: sim.url, WARDEN_REPORT_ONLY: "false" })) vi.stubEnv(name, value);
});
afterEach(() => sim.close());

async function scheduledPoll(): Promise<WatchResult | Error> {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return (handler({ source: "schedule" } as never, lambdaContext()) as Promise<WatchResult>).catch((err: Error) => err);
}

/** The item's size as DynamoDB counts it: its attribute names and values ("id", "cursor", "revision"). */
const itemBytes = (json: string) => "id".length + "watch:cursor".length + "cursor".length + json.length + "revision".length + 2;
const LIMIT = 400 * 1024;

/** acme's position now, and the positions of `stale` subgroups watched once and gone 40 days ago: as close under the limit as whole entries go. */
function grownCursor(): WatchCursor {
  const cursor: WatchCursor = { version: 2, sources: { "group:10": { id: 0, at: new Date(Date.now() - 60_000).toISOString() } }, retries: {} };
  const gone = new Date(Date.now() - 40 * 86_400_000).toISOString();
  for (let id = 70_000_000; ; id++) {
    cursor.sources[`group:${id}`] = { id: 900_000_000 + id, at: gone };
    if (itemBytes(JSON.stringify(cursor)) > LIMIT - 40) {
      delete cursor.sources[`group:${id}`];
      break;
    }
  }
  // One last subgroup whose id digits make the item 20 bytes under the limit.
  const room = LIMIT - 20 - itemBytes(JSON.stringify(cursor));
  for (let key = 1; key < 1e12; key = key * 10 + 1) {
    for (let id = 1; id < 1e15; id = id * 10 + 1) {
      if (`,"group:${key}":{"id":${id}}`.length === room) {
        cursor.sources[`group:${key}`] = { id };
        return cursor;
      }
      if (`,"group:${key}":{"id":${id},"at":"${gone}"}`.length === room) {
        cursor.sources[`group:${key}`] = { id, at: gone };
        return cursor;
      }
    }
  }
  throw new Error(`no entry of ${room} bytes`);
}

describe("a cursor grown by sources that came and went", () => {
  it("one more source does not stop the watch for good: the poll still stores its cursor", { timeout: 90_000 }, async () => {
    const store = dynamoWatchCursor({ client: world.dynamo.client(), table: () => world.table });
    const cursor = grownCursor();
    expect(Object.keys(cursor.sources).length).toBeGreaterThan(5_000);
    expect(await store.write(cursor, 0)).toBe(true);
    // acme/team (group 11) is a source the stored cursor lacks: this poll starts it.
    const first = await scheduledPoll();
    expect(first).not.toBeInstanceOf(Error);
    const second = await scheduledPoll();
    expect(second).not.toBeInstanceOf(Error);
    expect((await store.read())!.cursor.sources["group:11"]).toBeDefined();
  });
});
