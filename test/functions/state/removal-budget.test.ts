/**
 * The stream's removal budget under a policy no full run has judged (functions/shared/state/removal-budget.ts),
 * against dynalite: what runs take adds up to the limit and no further, runs at the same time included
 * (a conditional update: two that read the same count cannot both take the last of it), and each policy
 * has its own count. An item past its 30 days is a new budget, though DynamoDB's TTL (and dynalite) keeps
 * it a while: before, a month's spent budget held every stream run back until the TTL got to it (a
 * review of what may stay stuck).
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

  it("an item past its expiry that TTL has not deleted yet is a fresh budget, not a full one", async () => {
    let clock = Date.parse("2026-11-01T00:00:00Z");
    const budget = dynamoRemovalBudget({ now: () => clock });
    const C = "c".repeat(64);
    expect(await budget.reserve(C, 5, 5)).toBe(true);
    expect(await budget.reserve(C, 1, 5)).toBe(false);
    clock += 31 * 86_400_000;
    expect(await budget.reserve(C, 4, 5)).toBe(true);
    // Counted afresh from there, and held to the limit again.
    expect(await budget.reserve(C, 2, 5)).toBe(false);
    expect(await budget.reserve(C, 1, 5)).toBe(true);
  });
});
