/**
 * The event runs' request budget (functions/shared/state/event-request-budget.ts), against dynalite: a
 * run opens only while the hour's runs have sent fewer than the limit, each hour of the clock counts
 * apart, and what a run spends after it opened is counted even once the limit is passed.
 */
import { describe, expect, it } from "vitest";
import { dynamoEventRequestBudget } from "../../../functions/shared/state/event-request-budget.ts";
import { lambdaWorld } from "../../support/lambda-world.ts";

lambdaWorld({ dynamo: true });
const HOUR = 3_600_000;

describe("the event runs' request budget", () => {
  it("opens while the hour's runs have sent fewer than the limit, and again in the next hour", async () => {
    let clock = Date.parse("2026-11-30T14:10:00Z");
    const budget = dynamoEventRequestBudget({ now: () => clock });
    const first = await budget.open(10);
    const second = await budget.open(10);
    expect(first && second).toBeTruthy();
    await first!.spend(6);
    await second!.spend(6);
    expect(await budget.open(10)).toBeUndefined();
    clock += HOUR;
    expect(await budget.open(10)).toBeDefined();
  });

  it("a run opened before the limit was reached is counted in the hour it opened in", async () => {
    let clock = Date.parse("2026-11-30T14:59:59Z");
    const budget = dynamoEventRequestBudget({ now: () => clock });
    const run = await budget.open(5);
    clock += 2_000;
    await run!.spend(5);
    expect(await budget.open(5)).toBeDefined();
    clock -= 2_000;
    expect(await budget.open(5)).toBeUndefined();
  });
});
