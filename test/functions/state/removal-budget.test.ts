/**
 * The stream's removal budget under a policy no full run has judged (functions/shared/state/removal-budget.ts),
 * against dynalite: what runs take adds up to the limit and no further, runs at the same time included
 * (a conditional update: two that read the same count cannot both take the last of it), and each policy
 * has its own count.
 */
import { describe, expect, it } from "vitest";
import { dynamoRemovalBudget } from "../../../functions/shared/state/removal-budget.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

lambdaWorld({ dynamo: true });
const [A, B] = ["a".repeat(64), "b".repeat(64)];

describe("the stream's removal budget", () => {
  it("takes what fits within the limit, and nothing of a run that would pass it", async () => {
    const budget = dynamoRemovalBudget();
    expect(await budget.reserve(A, 3, 5)).toBe(true);
    expect(await budget.reserve(A, 3, 5)).toBe(false);
    expect(await budget.reserve(A, 2, 5)).toBe(true);
    expect(await budget.reserve(A, 1, 5)).toBe(false);
    // Another policy counts apart; a run over the limit alone takes nothing.
    expect(await budget.reserve(B, 6, 5)).toBe(false);
    expect(await budget.reserve(B, 5, 5)).toBe(true);
  });

  it("runs at the same time take no more than the limit together", async () => {
    const budget = dynamoRemovalBudget();
    const taken = await Promise.all(Array.from({ length: 20 }, () => budget.reserve(A, 1, 7)));
    expect(taken.filter(Boolean)).toHaveLength(7);
  });
});
