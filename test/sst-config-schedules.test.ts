/** sst.config.ts's cron() schedules: refused at deploy, naming the setting and the field, where EventBridge Scheduler would refuse them. */
import { describe, expect, it } from "vitest";
import { refusals } from "./support/sst/deploy.ts";

/** Each refused by EventBridge Scheduler ("Parameter ScheduleExpression is not valid"), per its cron rules. */
const REFUSED_BY_SCHEDULER = [
  "cron(0 3 * * * *)", // day-of-month and day-of-week both set: one must be ?
  "cron(0 3 ? * ? *)", // both ?
  "cron(0 3 1 * MON *)", // both given values
  "cron(75 3 * * ? *)", // minute out of range
  "cron(0 27 * * ? *)", // hour out of range
  "cron(a b c d e f)", // not cron at all
];

describe("sst.config.ts schedules", () => {
  // A review's finding: any six words in cron(…) passed, the commonest slip from Unix cron among them, and the deploy
  // failed half-way, at CreateSchedule, after the functions, roles and alarms before the schedule had changed.
  it("refuses at deploy, before any change, a cron EventBridge Scheduler would refuse, naming WARDEN_ENFORCE_SCHEDULE", async () => {
    const got = await refusals(REFUSED_BY_SCHEDULER.map((bad) => ({ WARDEN_ENFORCE_SCHEDULE: bad })));
    expect(Object.fromEntries(REFUSED_BY_SCHEDULER.map((bad, i) => [bad, got[i]]))).toEqual(
      Object.fromEntries(REFUSED_BY_SCHEDULER.map((bad) => [bad, expect.stringContaining("WARDEN_ENFORCE_SCHEDULE")])),
    );
    expect(got[3]).toBe('WARDEN_ENFORCE_SCHEDULE: "cron(75 3 * * ? *)" is not a cron() EventBridge Scheduler takes: its minutes field "75" is not 0-59, with , - * /. For example cron(0 3 * * ? *), each day at 03:00 UTC');
  });

  it("checks every schedule setting's cron the same way", async () => {
    const got = await refusals([{ WARDEN_WORKFLOWS_SCHEDULE: "cron(0 3 * * * *)" }, { WARDEN_WATCH_SCHEDULE: "cron(0/5 * ? 13 MON *)" }]);
    expect(got).toEqual([
      'WARDEN_WORKFLOWS_SCHEDULE: "cron(0 3 * * * *)" is not a cron() EventBridge Scheduler takes: its day-of-month "*" and day-of-week "*": exactly one of them must be ? (a day of the month, or of the week, not both). For example cron(0 3 * * ? *), each day at 03:00 UTC',
      'WARDEN_WATCH_SCHEDULE: "cron(0/5 * ? 13 MON *)" is not a cron() EventBridge Scheduler takes: its month field "13" is not 1-12 or JAN-DEC, with , - * /. For example cron(0 3 * * ? *), each day at 03:00 UTC',
    ]);
  });
});
