/**
 * What a pipeline request may name before anything is sent: a ref git itself would accept, and each
 * variable once. Every front end (CLI, Slack) and the pipeline job ask here, so a ref GitLab could
 * never have, or a variable sent twice with two values, is refused the same way everywhere.
 */

/** The rules of `git check-ref-format` (and a leading `-`, which git refuses for a branch), in order. */
const REF_RULES: readonly { test: (ref: string) => boolean; problem: string }[] = [
  { test: (ref) => ref === "", problem: "it is empty" },
  { test: (ref) => ref === "@", problem: 'it is "@" alone' },
  { test: (ref) => ref.startsWith("-"), problem: 'it starts with "-"' },
  // Control characters (C0 and DEL) and space: git refuses them outright.
  { test: (ref) => /[\x00-\x20\x7f]/.test(ref), problem: "it contains a space or a control character" },
  { test: (ref) => /[~^:?*[\\]/.test(ref), problem: 'it contains one of ~ ^ : ? * [ \\' },
  { test: (ref) => ref.includes(".."), problem: 'it contains ".."' },
  { test: (ref) => ref.includes("@{"), problem: 'it contains "@{"' },
  { test: (ref) => ref.startsWith("/") || ref.endsWith("/") || ref.includes("//"), problem: 'it starts or ends with "/", or contains "//"' },
  { test: (ref) => ref.endsWith("."), problem: 'it ends with "."' },
  { test: (ref) => ref.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock")), problem: 'a part of it starts with "." or ends with ".lock"' },
];

/**
 * Why git would refuse `ref` as a ref name, or undefined when it is a valid one. The message quotes
 * the ref unless `echo` is false (a Slack reply quotes no word of the command: docs/talking-to-gitlab.md).
 */
export function refProblem(ref: string, echo = true): string | undefined {
  // Git creates a ref through a file of its name (its lock file): no part between slashes can be
  // longer than a file name, 255 bytes, and Warden takes no ref over 4,096 bytes (Linux's longest
  // path). Refused first, and not quoted: a reply must not carry kilobytes of the sender's text.
  const bytes = Buffer.byteLength(ref);
  if (bytes > 4096 || ref.split("/").some((part) => Buffer.byteLength(part) > 255)) {
    return `the ref is not a valid git ref name: it is ${bytes} bytes long, and a ref's part between slashes can be at most 255 bytes (a file name), the whole at most 4,096`;
  }
  const broken = REF_RULES.find((rule) => rule.test(ref));
  return broken && `${echo ? `ref ${JSON.stringify(ref)}` : "the ref"} is not a valid git ref name: ${broken.problem}`;
}

/** A variable reference in its Windows form, which GitLab expands as it does $NAME. */
const PERCENT_REFERENCE = /%[A-Za-z_][A-Za-z0-9_]*%/;

/**
 * Why a pipeline request cannot be sent as given (a bad ref, a variable given twice, a value GitLab
 * would expand), or undefined; with `echo` false, naming no word of the request (by position instead).
 */
export function pipelineRequestProblem(ref: string, variables: readonly { key: string; value: string }[], echo = true): string | undefined {
  const named = (i: number) => (echo ? `variable ${variables[i]!.key}` : `variable ${i + 1}`);
  const seen = new Set<string>();
  const twice = variables.findIndex(({ key }) => seen.size === seen.add(key).size);
  // GitLab expands $NAME, ${NAME} and %NAME% in a pipeline variable's value (lib/expand_variables.rb; the
  // API has no raw flag for them): DEPLOY_ENV=$PROD_DB_PASSWORD would hand the job a protected variable of
  // the project, which the pipeline Warden starts on a protected ref has and the requester could never read.
  const expands = variables.findIndex(({ value }) => value.includes("$") || PERCENT_REFERENCE.test(value));
  return (
    refProblem(ref, echo) ??
    (twice >= 0 ? (echo ? `${named(twice)} is given twice` : `${named(twice)} has the name of one before it`) : undefined) ??
    (expands >= 0 ? `${named(expands)}'s value holds "$" or a %NAME% reference, which GitLab would expand with the pipeline's other variables, protected ones included: give a value without them` : undefined)
  );
}
