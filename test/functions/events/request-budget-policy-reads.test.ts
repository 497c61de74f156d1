/**
 * The event runs' hourly request budget (gitlab.events.maxRequestsPerHour, state/event-request-budget.ts)
 * with the policy in a GitLab repository (WARDEN_POLICY_PROJECT): every run reads the policy from GitLab
 * (three requests), and that read came before the budget was asked and was never counted, so once the
 * hour's budget was spent each forged event still cost GitLab three requests with the jobs' token: a
 * flood was not bounded (a third review of the events path). The budget is asked first now, by the
 * limit of the last policy the container read, and the policy's reads are counted.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { streamDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { captureLogs, lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { forgedShareEvent, IDS, watchPolicyText } from "../../support/watch-world.ts";

const BUDGET = 25;
const POLICY = `${watchPolicyText()}  events: { maxRequestsPerHour: ${BUDGET} }\n`;
const world = eventsWorld({ policy: POLICY });

describe("the event runs' request budget, with the policy in a GitLab repository", () => {
  it("once the hour's budget is spent, a forged event costs GitLab no request (the policy read included)", async () => {
    const tool = world.gitlab.dataset.projects.find((p) => p.id === IDS.tool)!;
    world.gitlab.repositories.commit(tool, { "warden.yaml": POLICY });
    vi.stubEnv("WARDEN_POLICY_PROJECT", tool.path_with_namespace);
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    // Warm containers, as a flood finds them.
    vi.resetModules();
    const { handler: events } = await import("../../../functions/events.ts");
    const { handler: worker } = await import("../../../functions/worker.ts");
    const forgedRun = async (id: number): Promise<number> => {
      world.lambdaApi.invokes.length = 0;
      const before = world.gitlab.counters.requests;
      const answer = (await events(streamDelivery([forgedShareEvent(id, IDS.app)]), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
      expect(answer.statusCode).toBe(200);
      const [payload] = world.lambdaApi.invokes.map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
      await worker(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" }));
      return world.gitlab.counters.requests - before;
    };
    try {
      // Spend the hour's budget.
      let i = 0;
      while (!JSON.stringify(logs.lines()).includes("the hour's request budget is spent") && i < 40) await forgedRun(992_000 + i++);
      expect(JSON.stringify(logs.lines())).toContain("the hour's request budget is spent");
      // Then a flood of 20 more events: none of their runs may start, so none may send a request.
      const after: number[] = [];
      for (let j = 0; j < 20; j++) after.push(await forgedRun(993_000 + j));
      expect(after.reduce((a, b) => a + b, 0)).toBe(0);
    } finally {
      logs.restore();
    }
  });
});
