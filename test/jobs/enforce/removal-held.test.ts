/**
 * enforce's removals in steps (lib/jobs/enforce/removal-steps.ts): a step cut by its invocation's
 * deadline goes on in a further part (`remove N part M`) while a DELETE it sent is unanswered, but not
 * past the run's time limit. One share whose DELETE GitLab (or a proxy) holds off longer than an
 * invocation every time (a 429 with a long Retry-After) once kept a durable run adding parts until the
 * execution's own timeout ended it without a report, and every scheduled run after it the same.
 */
import { describe, expect, it } from "vitest";
import type { Steps } from "../../../lib/jobs/steps.ts";
import { run, setup, sim } from "../../support/enforce-world.ts";

/** Steps as a durable execution runs them: each removal step in an invocation that ends `sliceMs` after it begins. */
function invocationSteps(sliceMs: number, mostSteps: number) {
  let deadline: AbortSignal | undefined;
  let end = Infinity;
  const names: string[] = [];
  const steps: Steps & { names: string[] } = {
    names,
    perStep: 10_000,
    sliceEnd: () => end,
    get deadline() {
      return deadline;
    },
    async step(name, work) {
      names.push(name);
      if (names.length > mostSteps) throw new Error(`runaway: ${names.length} steps, the last ${name}`);
      const removal = name.startsWith("remove ");
      deadline = removal ? AbortSignal.timeout(sliceMs) : undefined;
      end = removal ? Date.now() + sliceMs : Infinity;
      return JSON.parse(JSON.stringify(await work(1)));
    },
    async pause() {},
  };
  return steps;
}

describe("a removal held off longer than an invocation, every time", () => {
  it("the run stops at its time limit with the removal left for the next run, instead of adding parts without end", async () => {
    const { strays } = await setup({ projects: 200 });
    const [projectId, groupId] = strays[0]!.split(":");
    sim.addFaults({ kind: "429", headers: "retry-after", seconds: 30, method: "DELETE", path: `/api/v4/projects/${projectId}/share/${groupId}`, times: 1_000_000 });
    const steps = invocationSteps(200, 40);
    const started = Date.now();
    // The run may take 3 s; its removals' invocations are 0.2 s each.
    const report = await run({ apply: true, runLimitMs: 3_000 }, steps).catch((err: Error) => err);
    const parts = steps.names.filter((n) => /^remove \d+ part \d+$/.test(n)).length;
    expect(report, `${parts} parts in ${Date.now() - started} ms`).not.toBeInstanceOf(Error);
    if (report instanceof Error) return;
    expect(report.summary.complete).toBe(false);
    expect(report.actions.filter((a) => a.status === "planned")).toHaveLength(1);
  }, 120_000);
});
