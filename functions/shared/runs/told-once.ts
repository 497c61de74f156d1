/**
 * The summaries of the runs that come in floods, each finding told once. Whoever holds the streaming
 * token can name the same subject in delivery after delivery (a new id each, so a new claim): on a
 * report-only stage, or with a stray the token cannot remove, every run finds the same thing, and each
 * would post it to the channel again, as often as they liked. The Watch polls every minute: a failure
 * that lasts (the jobs' token expired, an audit listing that fails every time) would be posted 1,440
 * times a day. An alarm notifies once, as its state changes; so an EventsWorker run, or a Watch poll,
 * posts its summary only if no run of its kind posted the same one (the same report: actions, summary
 * and warnings; or the same failure) in the last 6 hours: a claim in the claims table under the
 * function's own keys (`worker:summary:<sha256>`, `watch:summary:<sha256>`).
 * A table that cannot be asked lets the summary through: a summary too many over one never sent.
 */
import { createHash } from "node:crypto";
import { errorText } from "../../../lib/jobs/report/index.ts";
import { logger } from "../lambda/logger.ts";
import { dynamoClaims, type Claims } from "../state/claims.ts";
import type { RunOutcome } from "./outcome.ts";

const TOLD_FOR_SECONDS = 6 * 3600;
const claims = dynamoClaims();

/**
 * Whether no run posted this outcome's summary in the last 6 hours (and now none will again in as long).
 * `signal` bounds the asking (the invocation's slice for it); without one there is no time left to post anyway.
 */
export async function firstTelling(outcome: RunOutcome, teller: "worker" | "watch", signal: AbortSignal | undefined, opts: { claims?: Claims; now?: () => number } = {}): Promise<boolean> {
  if (!signal) return true;
  const told = "report" in outcome ? { job: outcome.report.job, summary: outcome.report.summary, actions: outcome.report.actions, warnings: outcome.report.warnings } : { error: toldAs(outcome.error) };
  const digest = createHash("sha256").update(JSON.stringify(told)).digest("hex");
  const now = (opts.now ?? Date.now)();
  try {
    return await (opts.claims ?? claims).claim(`${teller}:summary:${digest}`, Math.floor(now / 1000) + TOLD_FOR_SECONDS, undefined, signal);
  } catch (err) {
    logger.warn("could not tell whether this summary was posted already; posting it", { error: errorText(signal.aborted ? signal.reason : err) });
    return true;
  }
}

/**
 * A failure as it is told apart from others: its text, or what it says it is told as (`toldAs`): a subject's
 * read failing is one failure of GitLab's, whichever id a streamed event named (each a new text otherwise,
 * each a new post, for as many ids as a holder of the streaming token cares to name).
 */
function toldAs(err: unknown): string {
  const as = (err as { toldAs?: unknown } | null | undefined)?.toldAs;
  return typeof as === "string" ? as : errorText(err);
}
