/** lib/config/cron-expression.ts: a cron()'s six fields as EventBridge Scheduler's cron reference gives them. */
import { describe, expect, it } from "vitest";
import { cronProblem } from "../../lib/config/cron-expression.ts";

describe("cronProblem", () => {
  it("takes what EventBridge Scheduler takes: values, names, lists, ranges, steps, L, W and #, with ? in one day field", () => {
    const taken = [
      "0 3 * * ? *",
      "0 3 ? * MON-FRI *",
      "0/15 * * * ? *",
      "*/10 8-18 ? * 2-6 *",
      "5,35 14 * JAN,JUL ? 2026-2030",
      "0 0 L * ? *",
      "0 0 LW * ? *",
      "0 9 15W * ? *",
      "15 10 ? * 6L *",
      "0 8 ? * FRI#3 *",
      "0 8 ? * 6#2 2199",
      "0 12 1 1 ? 1970",
      "0 3 ? * mon-fri *",
    ];
    expect(Object.fromEntries(taken.map((fields) => [fields, cronProblem(fields)]))).toEqual(Object.fromEntries(taken.map((fields) => [fields, undefined])));
  });

  it("names the field at fault, and what it takes", () => {
    expect(cronProblem("60 3 * * ? *")).toBe('its minutes field "60" is not 0-59, with , - * /');
    expect(cronProblem("0 24 * * ? *")).toBe('its hours field "24" is not 0-23, with , - * /');
    expect(cronProblem("0 3 0 * ? *")).toBe('its day-of-month field "0" is not 1-31, with , - * / L W, or ?');
    expect(cronProblem("0 3 32W * ? *")).toBe('its day-of-month field "32W" is not 1-31, with , - * / L W, or ?');
    expect(cronProblem("0 3 * 0 ? *")).toBe('its month field "0" is not 1-12 or JAN-DEC, with , - * /');
    expect(cronProblem("0 3 ? * 0 *")).toBe('its day-of-week field "0" is not 1-7 or SUN-SAT, with , - * L #, or ?');
    expect(cronProblem("0 3 ? * 3#1,6#3 *")).toBe('its day-of-week field "3#1,6#3" is not 1-7 or SUN-SAT, with , - * L #, or ?');
    expect(cronProblem("0 3 ? * 6#6 *")).toBe('its day-of-week field "6#6" is not 1-7 or SUN-SAT, with , - * L #, or ?');
    expect(cronProblem("0 3 * * ? 1969")).toBe('its year field "1969" is not 1970-2199, with , - * /');
    expect(cronProblem("? 3 * * ? *")).toBe('its minutes field "?" is not 0-59, with , - * /');
    expect(cronProblem("0/0 3 * * ? *")).toBe('its minutes field "0/0" is not 0-59, with , - * /');
    expect(cronProblem("0 3 * * ? *-5")).toBe('its year field "*-5" is not 1970-2199, with , - * /');
    expect(cronProblem("0 3 *,? * ? *")).toBe('its day-of-month field "*,?" is not 1-31, with , - * / L W, or ?');
  });

  it("wants ? in exactly one of day-of-month and day-of-week", () => {
    expect(cronProblem("0 3 * * * *")).toBe('its day-of-month "*" and day-of-week "*": exactly one of them must be ? (a day of the month, or of the week, not both)');
    expect(cronProblem("0 3 ? * ? *")).toBe('its day-of-month "?" and day-of-week "?": exactly one of them must be ? (a day of the month, or of the week, not both)');
    expect(cronProblem("0 3 1 * MON *")).toBe('its day-of-month "1" and day-of-week "MON": exactly one of them must be ? (a day of the month, or of the week, not both)');
  });

  it("wants six fields", () => {
    expect(cronProblem("0 3 * * ?")).toBe("it has 5 fields, not the 6 of minutes, hours, day-of-month, month, day-of-week and year");
  });
});
