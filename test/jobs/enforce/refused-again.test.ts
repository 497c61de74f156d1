/**
 * A removal GitLab refuses every time (a 403 where the token is not Maintainer; a group share GitLab
 * "removes" with a 204 and keeps, without Owner) was planned again by every run and counted against
 * gitlab.guard.maxRemovals each time: once that many stood, one new stray made the plan exceed the limit,
 * the guard tripped, nothing was removed, every run, for good, and the full run's `tooMany` held the
 * watch and the stream too (a review of what may stay stuck). The functions' last-sweep record
 * (rules.ts LastSweep.refused) now names them, and the next run under the same policy tries them again
 * without counting them, marking them `refusedBefore`; a run that attempts none (a dry run, a tripped
 * guard) keeps them in its own record.
 */
import { expect, it } from "vitest";
import { enforce, sweepOf, type EnforceReport, type LastSweep } from "../../../lib/jobs/index.ts";
import { refusedBefore } from "../../../lib/jobs/enforce/rules.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { validated } from "../../support/report.ts";
import { sim, start } from "../../support/watch-sim.ts";
import { allShares, client, IDS, share, watchPolicyText } from "../../support/watch-world.ts";

const policy = parsePolicy(watchPolicyText({ maxRemovals: 1 }), "watch.yaml");
const run = (apply: boolean, lastSweep?: LastSweep): Promise<EnforceReport> => validated(enforce({ gitlab: client(sim, "root"), policy, apply, ...(lastSweep && { lastSweep }) }));

it("a share GitLab refuses to remove every time does not hold every new stray behind the guard, through dry runs too", async () => {
  await start();
  sim.addFaults({ kind: "status", status: 403, method: "DELETE", path: `/api/v4/projects/${IDS.app}/share/${IDS.partners}`, times: 1_000_000 });
  await share(sim, "jane", `/projects/${IDS.app}/share`, IDS.partners);
  const first = await run(true);
  expect(first.actions).toEqual([expect.objectContaining({ projectId: IDS.app, status: "failed", lasting: true })]);
  const firstSweep = sweepOf(first)!;
  expect(firstSweep.refused).toEqual([`project:${IDS.app}:${IDS.partners}`]);

  // A new stray; a dry run first (a console run), whose record must not forget the refusal it did not attempt.
  await share(sim, "jane", `/projects/${IDS.api}/share`, IDS.partners);
  const dry = await run(false, firstSweep);
  expect(dry.summary.guard).toBe("ok");
  expect(dry.actions.find((a) => a.kind === "project" && a.projectId === IDS.app)).toMatchObject({ status: "planned", refusedBefore: true });
  const drySweep = sweepOf(dry)!;
  expect(drySweep).toMatchObject({ refused: firstSweep.refused });
  expect(drySweep.tooMany).toBeUndefined();

  const applied = await run(true, drySweep);
  expect(applied.summary.guard).toBe("ok");
  expect(applied.warnings).toContainEqual(expect.stringMatching(/^guard: 1 planned removal GitLab refused in the last full run \(.*\) under this same policy, tried again but not counted against gitlab\.guard\.maxRemovals/));
  // The new stray is gone; the refused one was tried again, and is refused again.
  expect(allShares(sim)).toEqual([`p${IDS.app}:${IDS.partners}`]);
  expect(applied.actions.find((a) => a.kind === "project" && a.projectId === IDS.app)).toMatchObject({ status: "failed", lasting: true });

  // Under another policy the record says nothing: every removal counts again.
  expect(refusedBefore(parsePolicy(watchPolicyText({ maxRemovals: 2 }), "watch.yaml"), drySweep).size).toBe(0);
});
