/**
 * A person invokes the Watch function from the console to see what it would do: `{}` is a dry run
 * (functions/watch.ts), the safe choice the docs offer. The dry poll once read through the one shared cursor
 * in the claims table and stored it moved past the events it read, dropping the subjects waiting for another
 * try: the applying schedule's next poll never saw those events, so the shares they named stayed until the
 * daily sweep (the second watch review's finding). A console dry run leaves the cursor as it found it now; a
 * report-only stage's schedule still moves its own (test/functions/watch.test.ts). An event that names the
 * schedule is taken for the schedule's, so one that also says "dryRun" (the schedule's event with a dry run
 * asked for) is refused before it polls: run as the schedule's, it would move the cursor all the same.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { dynamoWatchCursor } from "../../functions/shared/state/watch-cursor.ts";
import type { WatchResult } from "../../functions/watch.ts";
import { allShares, IDS, share, WATCH_TOKENS, watchPolicyText, watchWorld } from "../support/watch-world.ts";
import { lambdaContext } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const world = lambdaWorld({ dynamo: true, policy: watchPolicyText() });
let sim: GitLabSim;

beforeEach(async () => {
  vi.resetModules();
  sim = await startGitLabSim({ dataset: watchWorld(), tokens: WATCH_TOKENS });
  // A stage that applies (production): the schedule's polls remove strays.
  for (const [name, value] of Object.entries({ GITLAB_URL: sim.url, WARDEN_REPORT_ONLY: "false" })) vi.stubEnv(name, value);
});
afterEach(() => sim.close());

async function invoke(event: object): Promise<WatchResult> {
  vi.resetModules();
  const { handler } = await import("../../functions/watch.ts");
  return (await handler(event as never, lambdaContext())) as WatchResult;
}
const schedule = () => invoke({ source: "schedule" });
const stored = () => dynamoWatchCursor({ client: world.dynamo.client(), table: () => world.table }).read();

/** The schedule's first poll starts the cursor; then Jane shares acme/app with partners: a stray the next scheduled poll is to remove. */
async function strayAfterFirstPoll(): Promise<void> {
  expect(await schedule()).toEqual({ polled: "started", events: 0 });
  await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
}

/** The schedule's next poll removes that stray: nothing before it took the events away. */
async function nextPollRemovesIt(): Promise<void> {
  const next = await schedule();
  expect(allShares(sim)).toEqual([]);
  expect(next).toMatchObject({ dryRun: false, actions: [{ projectId: IDS.app, status: "done" }] });
}

describe("a console dry run of the Watch function on a stage that applies", () => {
  it("leaves the events it read to the schedule: the next scheduled poll still removes the stray share they named", async () => {
    await strayAfterFirstPoll();
    // An operator looks: a dry run, it plans the removal and changes nothing on GitLab.
    const dry = (await invoke({})) as Extract<WatchResult, { job: string }>;
    expect(dry).toMatchObject({ dryRun: true, actions: [{ projectId: IDS.app, status: "planned" }] });
    // The schedule's next poll, a minute later.
    await nextPollRemovesIt();
  });

  it('refuses { "source": "schedule", "dryRun": true } before polling: the next scheduled poll still removes the stray share', async () => {
    await strayAfterFirstPoll();
    const before = await stored();
    await expect(invoke({ source: "schedule", dryRun: true })).rejects.toThrow('invalid event: dryRun: the schedule sends { "source": "schedule" } alone: leave out source');
    expect(await stored()).toEqual(before);
    await nextPollRemovesIt();
  });

  it("keeps the subjects waiting for another try (a removal that failed with a 5xx): a dry run does not spend or drop them", async () => {
    await strayAfterFirstPoll();
    // GitLab fails the removal for a while: the subject waits in the cursor for another try.
    sim.addFaults({ kind: "status", status: 503, method: "DELETE", path: `/api/v4/projects/${IDS.app}/share/${IDS.partners}`, times: 1_000 });
    await schedule();
    expect((await stored())!.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
    sim.clearFaults();
    await invoke({});
    expect((await stored())!.cursor.retries).toEqual({ [`project:${IDS.app}`]: 1 });
  });
});
