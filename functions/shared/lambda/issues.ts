import type { z } from "zod";

const MISSING = "missing";

/** safeParse that tells an absent field from a wrong one, for describeIssues. */
export function check<S extends z.ZodType>(schema: S, data: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(data, { error: (issue) => (issue.code === "invalid_type" && issue.input === undefined ? MISSING : undefined) });
}

/**
 * A zod error as one line naming every offending field, e.g. `unknown field "dryrun"; dryRun:
 * expected boolean`. Values are never quoted: an event can carry a pipeline variable's value, a
 * secret can be malformed, and neither belongs in an error or a log.
 */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .flatMap((issue) => {
      if (issue.code === "unrecognized_keys") return issue.keys.map((key) => `unknown field ${JSON.stringify(pathText([...issue.path, key]))}`);
      const where = pathText(issue.path);
      return [`${where ? `${where}: ` : ""}${issueText(issue)}`];
    })
    .join("; ");
}

function issueText(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.message === MISSING ? MISSING : `expected ${issue.expected}`;
    case "invalid_value":
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}`;
    case "invalid_union":
      return "matches none of the allowed forms";
    case "too_small":
      return issue.origin === "string" ? "must not be empty" : `too small (minimum ${String(issue.minimum)})`;
    case "invalid_format":
      return `expected ${issue.format === "url" ? "a URL" : issue.format}`;
    case "custom":
      // Our own refinements' messages, written without values.
      return issue.message;
    default:
      return "invalid";
  }
}

function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
}
