/**
 * A notice's dates, in whole UTC days as exemptions' are: the due date a new notice gets, and how many
 * days are left on one (read from the issue every run: a person moving it grants more time).
 */
import type { Grace } from "../../policy/index.ts";

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** YYYY-MM-DD of `at`, in UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The due date of a notice opened `now` with this grace: the first UTC day that begins at or after
 * now + grace, so the grace is never cut short (7d opened at 09:00 is due 8 days later, at 00:00).
 */
export function dueDateFor(now: Date, grace: Grace): string {
  const end = now.getTime() + grace.hours * HOUR_MS;
  return utcDay(new Date(Math.ceil(end / DAY_MS) * DAY_MS));
}

/** Whole days from `now`'s UTC day to `dueDate` (0 or less: due); null without a due date, or with one that is no calendar day. */
export function daysLeft(dueDate: string | null, now: Date): number | null {
  if (dueDate === null || !isCalendarDay(dueDate)) return null;
  return Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.parse(`${utcDay(now)}T00:00:00Z`)) / DAY_MS);
}

/** Whether `text` is a calendar day, YYYY-MM-DD: V8 reads 2026-02-30 as March 2, so the day must read back as written. */
export function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const day = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(day) && utcDay(new Date(day)) === text;
}
