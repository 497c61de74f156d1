/**
 * The text of a Warden slash command, parsed into the job it asks for. Words are separated by
 * whitespace (no quoting: neither project paths, refs nor the variables Warden's policy names need it).
 * An error names what is wrong by position and never quotes a word of the command: a reply that
 * echoed text the user chose would be a probe of what Warden masks (docs/talking-to-gitlab.md).
 */
import { projectRefProblem } from "../../../lib/policy/glob.ts";
import { pipelineRequestProblem } from "../../../lib/policy/refs.ts";
import type { JobRequest } from "../runs/job-request.ts";
import { EXEMPT_SHAPE, parseExempt } from "./exempt-command.ts";

export type ParsedCommand = { kind: "help" } | { kind: "job"; request: JobRequest } | { kind: "invalid"; error: string };

export function usage(slash = "/warden"): string {
  return [
    "Usage:",
    `\`${slash} enforce [--apply]\` remove project shares the policy does not allow (dry run unless --apply)`,
    `\`${slash} workflows [--apply]\` make n8n's active workflows what the policy says (dry run unless --apply)`,
    `\`${slash} pipeline <project-path> <ref> [KEY=VALUE …] [--apply]\` start a pipeline the policy allows (dry run unless --apply)`,
    `\`${slash} ${EXEMPT_SHAPE}\` propose an exemption as a merge request on the policy repository (users allowed to apply only)`,
    `\`${slash} help\` this message`,
  ].join("\n");
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseCommand(text: string): ParsedCommand {
  const [name, ...args] = words(text);
  switch (name?.toLowerCase()) {
    case undefined:
    case "help":
      return { kind: "help" };
    case "enforce":
    case "workflows":
      return applyOnly(name.toLowerCase() as "enforce" | "workflows", args);
    case "pipeline":
      return pipeline(args);
    case "exempt": {
      // Its reason is free text: its words as typed, a dash in them left alone.
      const parsed = parseExempt(typedWords(text).slice(1), new Date());
      return "error" in parsed ? invalid(parsed.error) : { kind: "job", request: parsed.request };
    }
    default:
      return invalid("unknown command: the first word is one of enforce, workflows, pipeline, exempt and help");
  }
}

/**
 * Slack escapes &, < and > in command text; and chat clients turn a typed `--` into a dash (—, –),
 * so a leading dash is read as the `--` the user typed.
 */
function words(text: string): string[] {
  return typedWords(text).map((word) => word.replace(/^[\u2013\u2014]/, "--"));
}

function typedWords(text: string): string[] {
  const unescaped = text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  return unescaped.split(/\s+/).filter(Boolean);
}

/**
 * Every command's one option, `--apply`, wherever it comes (as on the CLI: no project, ref or
 * KEY=VALUE starts with a dash), and the words left.
 */
function withApply(job: JobRequest["job"], words: string[]): { apply: boolean; rest: string[] } | { error: string } {
  const options = words.filter((word) => word.startsWith("-"));
  const unknown = options.filter((option) => option !== "--apply");
  if (unknown.length) return { error: `${job} takes only the option --apply, and ${others(unknown.length, "option")}` };
  if (options.length > 1) return { error: `${job}: --apply given twice` };
  return { apply: options.length === 1, rest: words.filter((word) => !word.startsWith("-")) };
}

function applyOnly(job: "enforce" | "workflows", words: string[]): ParsedCommand {
  const parsed = withApply(job, words);
  if ("error" in parsed) return invalid(parsed.error);
  if (parsed.rest.length) return invalid(`${job} takes only --apply, and ${others(parsed.rest.length, "word")}`);
  return { kind: "job", request: { job, apply: parsed.apply } };
}

function pipeline(words: string[]): ParsedCommand {
  const parsed = withApply("pipeline", words);
  if ("error" in parsed) return invalid(parsed.error);
  const [project, ref, ...assignments] = parsed.rest;
  if (project === undefined || ref === undefined) return invalid("pipeline needs a project path and a ref");
  // Not quoted back: a malformed command's words are the requester's markup.
  if (projectRefProblem(project)) return invalid("pipeline's project is a project's full path (GROUP/PROJECT, no wildcards) or its id");

  const variables: { key: string; value: string }[] = [];
  for (const [i, assignment] of assignments.entries()) {
    const eq = assignment.indexOf("=");
    const key = eq < 0 ? assignment : assignment.slice(0, eq);
    if (eq < 0 || !VARIABLE_NAME.test(key)) return invalid(`variables are KEY=VALUE with KEY a letter or _ followed by letters, digits or _; variable ${i + 1} (after the ref) is not`);
    variables.push({ key, value: assignment.slice(eq + 1) });
  }
  // The same checks as the CLI's and the job's: a ref git would refuse, a variable given twice.
  const problem = pipelineRequestProblem(ref, variables, false);
  if (problem) return invalid(problem);
  return { kind: "job", request: { job: "pipeline", project, ref, variables, apply: parsed.apply } };
}

function invalid(error: string): ParsedCommand {
  return { kind: "invalid", error };
}

function others(n: number, noun: string): string {
  return n === 1 ? `1 other ${noun} was given` : `${n} other ${noun}s were given`;
}
