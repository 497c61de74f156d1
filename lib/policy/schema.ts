import { z } from "zod";
import { ACCESS_LEVEL_NAMES } from "./access-levels.ts";
import { oneOf } from "./format.ts";
import { labelProblem } from "./labels.ts";
import { compileGlob, globProblem, groupPathProblem, plainPathProblem, projectRefProblem, type GlobKind } from "./glob.ts";
import { DEFAULT_ATTRIBUTION_DAYS, DEFAULT_MAX_REMOVALS, DEFAULT_WATCH_MAX_REQUESTS_PER_HOUR, DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR, MAX_ATTRIBUTION_DAYS, DEFAULT_MAX_WORKFLOW_CHANGES, DEFAULT_NOTIFY_LEVEL, NOTIFY_LEVELS, UNMATCHED_RULES } from "./policy.ts";
import type { Glob, WorkflowSelector } from "./policy.ts";
import { reasonProblem } from "./rules.ts";
import { quoteValue } from "./quote.ts";
import { DEFAULT_ON_STRAY, MAX_GRACE_DAYS, ON_STRAY, parseGrace, strayProblems } from "./stray.ts";

// Schemas here phrase their own messages. An error function returns undefined for
// a missing value (input undefined) so that parse.ts's generic "required" applies.

/** A string that `problem` accepts (returns undefined for). */
function checkedString(problem: (value: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const message = problem(value);
    if (message !== undefined) ctx.addIssue({ code: "custom", message });
  });
}

function glob(kind: GlobKind = "path") {
  return checkedString((pattern) => globProblem(pattern, kind)).transform(
    (pattern): Glob => ({ pattern, matches: compileGlob(pattern, kind) }),
  );
}

function idList(what: string, pattern: RegExp, example: string) {
  return z.array(
    checkedString((id) => (pattern.test(id) ? undefined : `${JSON.stringify(id)} is not a ${what} (like ${example})`)),
  );
}

const positiveInt = (fallback: number) => {
  const error = (iss: { input?: unknown }) =>
    iss.input === undefined ? undefined : `must be a positive integer, got ${quoteValue(iss.input)}`;
  return z.int({ error }).positive({ error }).default(fallback);
};

/**
 * YYYY-MM-DD that names a real day, judged as the file writes it: parse.ts keeps a YAML timestamp
 * (`%YAML 1.1`, `!!timestamp`) as its text, so a day that does not exist, or a time of day, is refused
 * here rather than rolled over into another day by a Date.
 */
const calendarDay = z
  .string({ error: (iss) => (iss.input === undefined ? undefined : `expected a date YYYY-MM-DD, got ${quoteValue(iss.input)}`) })
  .transform((day, ctx) => {
    if (isCalendarDay(day)) return day;
    ctx.issues.push({ code: "custom", input: day, message: `${JSON.stringify(day)} is not a calendar date YYYY-MM-DD` });
    return z.NEVER;
  });

function isCalendarDay(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const MAX_EXPIRES_WITHIN_DAYS = 3650;

/** `<N>d`, stored as N: a policy names a period, a share's expires_at names a day. */
const expiresWithin = z
  .string({ error: (iss) => (iss.input === undefined ? undefined : expiresWithinProblem(iss.input)) })
  .transform((text, ctx) => {
    const days = Number(/^([1-9]\d*)d$/.exec(text)?.[1]); // NaN when not <N>d
    if (days <= MAX_EXPIRES_WITHIN_DAYS) return days;
    ctx.issues.push({ code: "custom", input: text, message: expiresWithinProblem(text) });
    return z.NEVER;
  });

function expiresWithinProblem(input: unknown): string {
  return `expected <N>d with N from 1 to ${MAX_EXPIRES_WITHIN_DAYS}, got ${quoteValue(input)}`;
}

/** How far back removals are attributed from audit events: whole days, or `off` (= 0). */
const attributionDaysError = (iss: { input?: unknown }) =>
  iss.input === undefined ? undefined : `expected a number of days from 0 to ${MAX_ATTRIBUTION_DAYS}, or off; got ${quoteValue(iss.input)}`;
const attributionDays = z
  .union([z.literal("off"), z.int({ error: attributionDaysError }).min(0, { error: attributionDaysError }).max(MAX_ATTRIBUTION_DAYS, { error: attributionDaysError })], { error: attributionDaysError })
  .transform((days) => (days === "off" ? 0 : days))
  .default(DEFAULT_ATTRIBUTION_DAYS);

const accessLevel = z.enum(ACCESS_LEVEL_NAMES, {
  error: (iss) =>
    iss.input === undefined
      ? undefined
      : `unknown access level ${quoteValue(iss.input)} (expected ${oneOf(ACCESS_LEVEL_NAMES)})`,
});

const SELECTOR = /^(id|name|tag):(\S(?:.*\S)?)$/s;

const workflowSelector = z.string().transform((text, ctx): WorkflowSelector => {
  const [, kind, value] = SELECTOR.exec(text) ?? [];
  if (kind !== undefined && value !== undefined) return { kind: kind as WorkflowSelector["kind"], value, text };
  ctx.issues.push({
    code: "custom",
    input: text,
    message: `invalid selector ${JSON.stringify(text)} (expected id:<id>, name:<name> or tag:<tag>, with no space after the colon)`,
  });
  return z.NEVER;
});

const onStray = z.enum(ON_STRAY, {
  error: (iss) => (iss.input === undefined ? undefined : `expected ${oneOf(ON_STRAY)}, got ${quoteValue(iss.input)}`),
});

/** `<N>d` or `<N>h`, from 1 hour to MAX_GRACE_DAYS days. */
const grace = z
  .string({ error: (iss) => (iss.input === undefined ? undefined : graceProblem(iss.input)) })
  .transform((text, ctx) => {
    const parsed = parseGrace(text);
    if (parsed !== undefined) return parsed;
    ctx.issues.push({ code: "custom", input: text, message: graceProblem(text) });
    return z.NEVER;
  });

function graceProblem(input: unknown): string {
  return `expected a duration <N>d or <N>h (like 7d or 36h), from 1h to ${MAX_GRACE_DAYS}d, got ${quoteValue(input)}`;
}

const scope = z
  .strictObject({
    groups: z.array(checkedString(groupPathProblem)).min(1),
    overrides: z.array(z.strictObject({ group: checkedString(groupPathProblem), onStray: onStray.optional(), grace: grace.optional() })).default([]),
  })
  .transform(({ groups, overrides }) => {
    const matchers = groups.map((group) => compileGlob(`${group}/**`));
    return { groups, overrides, includes: (projectPath: string) => matchers.some((matches) => matches(projectPath)) };
  });

const label = checkedString(labelProblem);

/** A project by id (YAML's number, kept as its digits: GitLab's API takes either) or by full path. */
const projectRef = z.preprocess((value) => (typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value), checkedString(projectRefProblem));

const notices = z.strictObject({
  project: projectRef,
  labels: z.array(label).default([]),
  assignAdder: z.boolean().default(true),
  authors: z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(20).default([]),
});

/** Why an exemption exists: one line a reviewer reads, bounded. */
const exemptionReason = checkedString(reasonProblem);

const exemption = z
  .strictObject({ project: glob().optional(), group: glob().optional(), sharedWith: glob().optional(), until: calendarDay.optional(), reason: exemptionReason.optional() })
  .superRefine(({ project, group }, ctx) => {
    if ((project === undefined) === (group === undefined)) {
      const got = project === undefined ? "neither" : "both";
      ctx.addIssue({ code: "custom", message: `expected exactly one of project or group, got ${got}` });
    }
  });

/** A custom role's id (GitLab's `member_role_id`). */
const memberRoleError = (iss: { input?: unknown }) => (iss.input === undefined ? undefined : `expected a custom role's id (member_role_id, a positive whole number), got ${quoteValue(iss.input)}`);
const memberRoleId = z.int({ error: memberRoleError }).positive({ error: memberRoleError });
const MEMBER_ROLES_ALONE = "memberRoles names the custom roles a rule with maxAccess allows; without maxAccess the rule allows any access already: add maxAccess, or remove memberRoles";

const allowRule = z
  .strictObject({ group: glob(), projects: z.array(glob()).min(1).optional(), groups: z.array(glob()).min(1).optional(), maxAccess: accessLevel.optional(), memberRoles: z.array(memberRoleId).min(1).optional(), expiresWithin: expiresWithin.optional() })
  .superRefine(({ maxAccess, memberRoles }, ctx) => {
    if (memberRoles !== undefined && maxAccess === undefined) ctx.addIssue({ code: "custom", path: ["memberRoles"], message: MEMBER_ROLES_ALONE });
  });

const gitlab = z.strictObject({
  scope: scope.optional(),
  shares: z.strictObject({
    allow: z.array(allowRule),
    exempt: z.array(exemption).default([]),
    onStray: onStray.default(DEFAULT_ON_STRAY),
    grace: grace.optional(),
    notices: notices.optional(),
  }),
  guard: z.strictObject({ maxRemovals: positiveInt(DEFAULT_MAX_REMOVALS), unmatchedRules: z.enum(UNMATCHED_RULES).default("refuse") }).prefault({}),
  attribution: z.strictObject({ days: attributionDays }).prefault({}),
  watch: z.strictObject({ maxRequestsPerHour: positiveInt(DEFAULT_WATCH_MAX_REQUESTS_PER_HOUR) }).prefault({}),
  events: z.strictObject({ maxRequestsPerHour: positiveInt(DEFAULT_EVENTS_MAX_REQUESTS_PER_HOUR) }).prefault({}),
}).superRefine((gitlab, ctx) => {
  for (const [path, message] of strayProblems(gitlab)) ctx.addIssue({ code: "custom", path: path.split(".").slice(1).flatMap(pathKeys), message });
});

/** "overrides[2]" -> ["overrides", 2]: strayProblems names paths as messages print them. */
function pathKeys(part: string): (string | number)[] {
  const [, key, index] = /^([^[]+)(?:\[(\d+)\])?$/.exec(part) ?? [];
  return index === undefined ? [key ?? part] : [key!, Number(index)];
}

const pipelines = z.strictObject({
  allow: z.array(
    z.strictObject({
      project: glob(),
      refs: z.array(glob("ref")).min(1),
      variables: z
        .array(
          checkedString((name) =>
            /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? undefined : `${JSON.stringify(name)} is not a variable name`,
          ),
        )
        .default([]),
      // Named, never implied: a pipeline Warden starts runs with its identity, so by default only a
      // protected ref's CI file (one its pushers are trusted with) may run.
      unprotected: z.boolean().default(false),
    }),
  ),
});

const n8n = z.strictObject({
  workflows: z.strictObject({
    keepActive: z.array(workflowSelector),
    unlisted: z.enum(["deactivate", "report"]).default("report"),
    listedInactive: z.enum(["activate", "publish", "report"]).default("report"),
  }),
  guard: z.strictObject({ maxChanges: positiveInt(DEFAULT_MAX_WORKFLOW_CHANGES) }).prefault({}),
});

const slackUserIds = idList("Slack user id", /^[UW][A-Z0-9]+$/, "U012ABCDEF");

const chatops = z.strictObject({
  slack: z
    .strictObject({
      users: slackUserIds.min(1),
      channels: idList("Slack channel id", /^[CGD][A-Z0-9]+$/, "C0123456").min(1).optional(),
      applyUsers: slackUserIds.optional(),
    })
    .superRefine(({ users, applyUsers }, ctx) => {
      // Someone who may apply but not run commands is almost certainly a typo.
      applyUsers?.forEach((user, i) => {
        if (!users.includes(user)) {
          ctx.addIssue({ code: "custom", path: ["applyUsers", i], message: `${user} is not listed in users` });
        }
      });
    }),
});

const notify = z.strictObject({ slack: z.enum(NOTIFY_LEVELS).default(DEFAULT_NOTIFY_LEVEL) });

export const policySchema = z.strictObject({
  version: z.literal(1, {
    error: (iss) => (iss.input === undefined ? undefined : `unsupported version ${quoteValue(iss.input)} (expected 1)`),
  }),
  gitlab: gitlab.optional(),
  pipelines: pipelines.optional(),
  n8n: n8n.optional(),
  chatops: chatops.optional(),
  notify: notify.optional(),
});
