import { restore, RestoreInputError, isStoredRun, parseRestoreTextFrom, runReader, storedRestoreInput } from "../../lib/jobs/index.ts";
import { escapeControls } from "../../lib/jobs/render/index.ts";
import { isLoopbackHost } from "../../lib/http/index.ts";
import type { CliIO, Command } from "./command.ts";
import { auditTrail, gitlabFrom, policyFrom, positiveInt, printReport, readWholeFile, UsageError } from "./io.ts";

const USAGE = `Usage: warden restore FILE|s3://BUCKET/KEY|latest[:TRIGGER] [--apply] [--include-stray] [--max-restores N] [--audit-log FILE] [--policy FILE] [--format text|markdown|json] [--debug]

Re-creates the shares an enforce run removed, each with its access level, expiry and custom role.
FILE is the JSON report of an applying run (warden enforce --apply --json), or the JSON audit lines
it wrote (its --audit-log file, which may hold several runs, its stderr, or the Enforce Lambda's
log lines; other lines are skipped). A run the Lambdas kept in their run-history bucket
($WARDEN_RUN_HISTORY_BUCKET) is read from S3 instead: s3://BUCKET/KEY names one; latest is the
latest sweep (an applying enforce run started by the schedule, the console or chat), latest:watch
the Watch function's latest batch, latest:event the Events stream's latest run (also
latest:schedule, latest:console, latest:chat). The report names the run chosen (summary.from)
before anything is re-created; a file named latest is ./latest. Only removals with status "done"
are restored. Each project and sharing group is read first: a share that exists is
"already-present" (left as it is, a different level or expiry noted), one whose expiry has passed
is "skipped", a refusal by GitLab is "failed" with its reason. Each share left is judged by the
current policy (read as enforce reads it), with the paths GitLab gives for its ids: one the policy
does not allow is "skipped" (the next sweep would remove it again: change the policy first) unless
--include-stray. A POST whose answer is lost is settled by reading the share, and sent again
(3 POSTs at most) when the read finds it was not made. Nothing changes without --apply; with it,
the restores are made unless there are more than the guard allows.

Options:
  --apply            re-create the shares
  --include-stray    re-create shares the current policy does not allow too (with a warning: the
                     next sweep removes them again unless the policy changes first)
  --max-restores N   the guard (default: the policy's gitlab.guard.maxRemovals)
  --audit-log FILE   append one JSON line per restore to FILE as it happens
  --concurrency N    reads and restores in flight at once (default 4)
  --policy FILE      the policy each share is judged by, and its guard (default: $WARDEN_POLICY, else
                     warden.yaml)
  --policy-project GROUP/PROJECT
                     the policy from this GitLab project's repository instead (as for enforce)
  --policy-path PATH its path there (default $WARDEN_POLICY_PATH, else warden.yaml)
  --policy-ref REF   branch, tag or commit (default $WARDEN_POLICY_REF, else the default branch);
                     a branch or tag must be protected
  --policy-allow-unprotected-ref
                     read it at a branch or tag that is not protected (as for enforce)
  --format FORMAT    text (default), markdown (for merge request comments and CI job summaries)
                     or json (the report's JSON Schema is docs/report.schema.json)
  --json             the same as --format json
  --request-timeout SECONDS
                     deadline of each request attempt (default $WARDEN_REQUEST_TIMEOUT, else 60)
  --allow-http       let GITLAB_URL be plain http:// to another host (as for enforce)
  --debug            print stack traces of unexpected errors
  -h, --help         print this help

Environment: GITLAB_URL, GITLAB_TOKEN (as for enforce; Owner on the sharing groups for group shares);
for a stored run, AWS credentials and region as the AWS CLI reads them (s3:GetObject, and for latest
s3:ListBucket), and WARDEN_RUN_HISTORY_BUCKET for latest.

Exit codes: 0 nothing to restore or all restored, 1 error, an unusable FILE or a restore that
failed, 2 dry run found shares to restore, 3 guard tripped (nothing changed).`;

export const restoreCommand: Command = {
  name: "restore",
  summary: "re-create the shares an enforce run removed, from its report or audit lines (dry run unless --apply)",
  usage: USAGE,
  options: { apply: { type: "boolean" }, "include-stray": { type: "boolean" }, "audit-log": { type: "string" }, concurrency: { type: "string" }, "max-restores": { type: "string" } },
  positionals: true,
  // A stored run (s3://…, latest) is no file here.
  files: ({ positionals: [file] }) => (file === undefined || isStoredRun(file) ? [] : [{ name: "the input (FILE)", path: file }]),
  async run(args, io: CliIO) {
    const { values, positionals } = args;
    if (positionals.length !== 1) throw new UsageError(`one FILE is required (the report or audit lines of an enforce --apply run)\n\n${USAGE}`);
    const file = positionals[0]!;
    const maxRestores = wholeNumber(values["max-restores"]);
    const concurrency = positiveInt(args, "concurrency");
    // The input is checked before the policy, GitLab's environment or any request to GitLab.
    const input = await (isStoredRun(file) ? readStoredRun(file, io) : readRestoreFile(file)).catch((err: unknown) => {
      // One line of Warden's, quoting the input (a stored run's S3 key, a report's fields): escaped whole,
      // as a UsageError's newlines are kept.
      throw err instanceof RestoreInputError ? new UsageError(escapeControls(err.message)) : err;
    });
    // The policy as enforce reads it: each share is judged by what the next sweep will judge it by.
    const [policy, gitlab] = [await policyFrom(args, io), gitlabFrom(io, { inFlight: concurrency })];
    const trail = auditTrail(io, args);
    const includeStray = values["include-stray"] === true;
    const report = await restore({ gitlab, policy, input, apply: values["apply"] === true, includeStray, maxRestores, concurrency, signal: trail.signal, audit: trail.sink })
      // An input made on another GitLab is refused as any other wrong input is.
      .catch((err: unknown) => {
        throw err instanceof RestoreInputError ? new UsageError(escapeControls(err.message)) : err;
      })
      .finally(() => trail.close());
    return trail.exitCode(printReport(io, report, args));
  },
};

/** A run the Lambdas kept, read from S3; the S3 client is loaded only when asked for: it is no part of every other command's start. */
async function readStoredRun(ref: string, { env, signal }: CliIO) {
  const { s3Objects } = await import("../../lib/aws/s3-objects.ts");
  // The bucket "latest" lists (an s3:// name carries its own).
  const bucket = () => {
    const name = env["WARDEN_RUN_HISTORY_BUCKET"];
    if (!name) throw new UsageError("WARDEN_RUN_HISTORY_BUCKET is not set");
    return name;
  };
  // Ctrl-C ends a listing or a read under way; each request is bounded besides (lib/aws/s3-objects.ts).
  // An endpoint on this machine (a local stand-in, maybe plain http://) is never proxied, as GitLab's is not
  // (lib/http/transport.ts): the session token each request carries would leave the machine in clear.
  const endpoint = env["AWS_ENDPOINT_URL_S3"] ?? env["AWS_ENDPOINT_URL"];
  const local = endpoint !== undefined && URL.canParse(endpoint) && isLoopbackHost(new URL(endpoint).hostname);
  return storedRestoreInput(runReader(s3Objects(undefined, local ? undefined : env), bucket, signal), ref).catch((err: unknown) => {
    throw awsSettingMissing(err, `reading ${ref.startsWith("s3://") ? ref : `the run history (s3://${env["WARDEN_RUN_HISTORY_BUCKET"] ?? ""})`}`) ?? err;
  });
}

/**
 * The AWS SDK's words for a region or credentials it found nowhere (its own error, or the cause of the
 * run history's), as the setting that gives them: a laptop's first `warden restore latest` meets them.
 */
function awsSettingMissing(err: unknown, reading: string): UsageError | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.name === "CredentialsProviderError" || /Could not load credentials/.test(e.message)) {
      return new UsageError(`${reading}: no AWS credentials were found: set AWS_PROFILE (a profile of ~/.aws), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`);
    }
    if (/^Region is missing/.test(e.message)) return new UsageError(`${reading}: no AWS region is set: set AWS_REGION, or AWS_PROFILE to a profile with a region`);
  }
  return undefined;
}

async function readRestoreFile(file: string) {
  return parseRestoreTextFrom(file, await readWholeFile(file, "restore", "give one enforce run's report or audit lines"));
}

/** --max-restores: 0 (restore nothing) or more. */
function wholeNumber(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new UsageError(`--max-restores takes a whole number, got "${String(raw)}"`);
  return n;
}
