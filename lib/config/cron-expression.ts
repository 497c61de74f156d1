/**
 * The six fields of a cron(…) schedule expression, checked as EventBridge Scheduler's cron reference gives
 * them: each field's values and wildcards, and `?` in exactly one of day-of-month and day-of-week. The
 * deploy (sst.config.ts) refuses what CreateSchedule would refuse only after the functions, roles and alarms
 * before the schedule had changed. Pure.
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  /** The names that stand for 1, 2, …: JAN-DEC, SUN-SAT. */
  names?: readonly string[];
  /** The field's own forms beside values, ranges, steps and `*` (day-of-month's L and W, day-of-week's L and #). */
  own?: (term: string, isValue: (text: string) => boolean) => boolean;
  /** What it takes, as a refusal says it. */
  takes: string;
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] as const;
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] as const;

const FIELDS: readonly CronField[] = [
  { name: "minutes", min: 0, max: 59, takes: "0-59, with , - * /" },
  { name: "hours", min: 0, max: 23, takes: "0-23, with , - * /" },
  {
    name: "day-of-month", min: 1, max: 31, takes: "1-31, with , - * / L W, or ?",
    // L: the month's last day; 15W: the weekday nearest the 15th; LW: the month's last weekday.
    own: (term, isValue) => term === "L" || term === "LW" || (/^\d+W$/.test(term) && isValue(term.slice(0, -1))),
  },
  { name: "month", min: 1, max: 12, names: MONTHS, takes: "1-12 or JAN-DEC, with , - * /" },
  {
    name: "day-of-week", min: 1, max: 7, names: DAYS, takes: "1-7 or SUN-SAT, with , - * L #, or ?",
    // L: the week's last day; 6L: the month's last Friday; 6#3: its third Friday.
    own: (term, isValue) => term === "L" || (/^\w+L$/.test(term) && isValue(term.slice(0, -1))) || (/^\w+#[1-5]$/.test(term) && isValue(term.slice(0, -2))),
  },
  { name: "year", min: 1970, max: 2199, takes: "1970-2199, with , - * /" },
];

/** Whether `term` (one of a list's items) is a value, a range or `*`, with an optional step, or one of the field's own forms. */
function isTerm(field: CronField, term: string): boolean {
  const isValue = (text: string) => (/^\d+$/.test(text) ? Number(text) >= field.min && Number(text) <= field.max : (field.names ?? []).includes(text));
  if (field.own?.(term, isValue)) return true;
  const [span, step, ...more] = term.split("/");
  if (more.length > 0 || (step !== undefined && !(/^[1-9]\d*$/.test(step) && Number(step) <= field.max))) return false;
  const ends = span!.split("-");
  return span === "*" || (ends.length <= 2 && ends.every(isValue));
}

/** What is wrong with one field, or undefined. */
function fieldProblem(field: CronField, text: string): string | undefined {
  const unspecified = field.name === "day-of-month" || field.name === "day-of-week";
  if (text === "?" && unspecified) return undefined;
  // Names in any case: refusing one AWS takes would be worse than AWS refusing it.
  const terms = text.toUpperCase().split(",");
  // AWS: with # the day-of-week field holds that one expression alone ("3#1,6#3" is two).
  const single = field.name !== "day-of-week" || !text.includes("#") || terms.length === 1;
  if (single && terms.every((term) => isTerm(field, term))) return undefined;
  return `its ${field.name} field "${text}" is not ${field.takes}`;
}

/** What EventBridge Scheduler would refuse in `fields`, the text between `cron(` and `)`, or undefined when it takes them. */
export function cronProblem(fields: string): string | undefined {
  const values = fields.split(" ");
  if (values.length !== FIELDS.length) return `it has ${values.length} fields, not the 6 of minutes, hours, day-of-month, month, day-of-week and year`;
  for (const [i, field] of FIELDS.entries()) {
    const problem = fieldProblem(field, values[i]!);
    if (problem) return problem;
  }
  const [dayOfMonth, dayOfWeek] = [values[2], values[4]];
  if ((dayOfMonth === "?") === (dayOfWeek === "?")) {
    return `its day-of-month "${dayOfMonth}" and day-of-week "${dayOfWeek}": exactly one of them must be ? (a day of the month, or of the week, not both)`;
  }
  return undefined;
}
