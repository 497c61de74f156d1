/**
 * The removal budget targeted runs share (functions/shared/state/removal-budget.ts), given back by a run
 * its deadline ended. lib/jobs/enforce's remove phase gives back what the run surely did not remove (the
 * removals not reached among them) with the run's own signal, which has fired by then when the deadline
 * is what stopped it: the give-back was refused before it was sent ("could not be given back"), and the
 * removals never made stayed taken for the item's 30 days. Under a policy no full run has judged, an
 * EventsWorker run or a Watch batch cut off before its removals (a GitLab answering slowly) so used the
 * budget up, and the real strays the next events named were kept until the daily sweep.
 */
import { describe, expect, it } from "vitest";
import { dynamoRemovalBudget } from "../../../functions/shared/state/removal-budget.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

lambdaWorld({ dynamo: true });
const A = "d".repeat(64);

describe("the removal budget, given back after the run's deadline", () => {
  it("takes back the removals a run its deadline stopped did not make, though the run's signal has fired", async () => {
    const budget = dynamoRemovalBudget();
    expect(await budget.reserve(A, 3, 3)).toBe(true);
    const fired = AbortSignal.abort(new Error("the Lambda times out in 10 s"));
    await budget.release(A, 3, fired);
    expect(await budget.reserve(A, 3, 3), "the removals not made stayed taken: the give-back was cut before it was sent").toBe(true);
  });
});
