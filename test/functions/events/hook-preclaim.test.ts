/**
 * "Nobody can claim an event before it happens" (docs/aws.md, dispatch.ts). A
 * system hook's times are whole seconds (GitLab writes `updated_at` with xmlschema: 2026-11-30T12:00:00Z),
 * and dispatch claims any event dated at or before now. So whoever holds the system hook token, and is
 * about to transfer a project of theirs, shared with an outside group, into a governed group (every field
 * of the project_transfer hook is theirs to know: id, paths, owner, times), sends that hook within the
 * second the transfer will be dated, before it commits: it is claimed, and its run finds the project still
 * outside the scope and leaves it. GitLab's own hook, the very same JSON, then arrives as a "duplicate" and
 * starts nothing: the transferred project keeps its stray share until the daily sweep. The same holds
 * wherever GitLab's clock runs behind AWS's, for as many seconds as it does.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { describe, expect, it, vi } from "vitest";
import type { SubjectWorkerEvent } from "../../../functions/shared/runs/job-request.ts";
import { systemHookDelivery } from "../../../sim/aws/gitlab-deliveries.ts";
import { lambdaContext } from "../../support/lambda.ts";
import { eventsWorld } from "../../support/events-world.ts";
import { allShares, IDS, share } from "../../support/watch-world.ts";

const world = eventsWorld();

async function deliver(hook: object): Promise<Record<string, unknown>> {
  vi.resetModules();
  const { handler } = await import("../../../functions/events.ts");
  const answer = (await handler(systemHookDelivery(hook), lambdaContext({ functionName: "warden-test-Events" }))) as APIGatewayProxyStructuredResultV2;
  expect(answer.statusCode).toBe(200);
  return JSON.parse(String(answer.body)) as Record<string, unknown>;
}

/** Runs (as Lambda would) each worker event the Events function started since the last call. */
async function runStarted(): Promise<unknown[]> {
  const payloads = world.lambdaApi.invokes.splice(0).map((i) => JSON.parse(i.payload) as SubjectWorkerEvent);
  vi.resetModules();
  const { handler } = await import("../../../functions/worker.ts");
  const results: unknown[] = [];
  for (const payload of payloads) results.push(await handler(payload as never, lambdaContext({ functionName: "warden-test-EventsWorker" })));
  return results;
}

describe("an event cannot be claimed before it happens, at a system hook's one-second precision", () => {
  it("the identical project_transfer hook, sent within the transfer's second before it commits, does not make GitLab's own hook a duplicate: the moved project's stray share is removed", async () => {
    // Olga's other/tool is shared with her partners group: outside the scope, nobody's business.
    await share(world.gitlab, "olga", `/projects/${IDS.tool}/share`, IDS.partners);
    const second = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const updatedAt = new Date(second).toISOString().replace(".000Z", "Z");
    const createdAt = "2026-01-05T09:00:00Z";
    // The hook GitLab will send once other/tool is in acme: every field known beforehand to the project's owner.
    const hook = {
      created_at: createdAt,
      updated_at: updatedAt,
      event_name: "project_transfer",
      name: "tool",
      owner_email: "olga@example.com",
      owner_name: "Olga Kern",
      owners: [{ name: "Olga Kern", email: "olga@example.com" }],
      path: "tool",
      path_with_namespace: "acme/tool",
      project_id: IDS.tool,
      project_visibility: "private",
      old_path_with_namespace: "other/tool",
    };
    vi.useFakeTimers({ toFake: ["Date"], now: second + 100 });
    try {
      // 100 ms into the second, the transfer not yet committed: the copy is taken and claimed, its run finds the project outside the scope.
      expect(await deliver(hook)).toMatchObject({ duplicates: 0, started: [`project:${IDS.tool}`] });
      expect(await runStarted()).toEqual([expect.objectContaining({ ran: false })]);
      // 600 ms into the same second the transfer commits, and GitLab sends its hook.
      vi.setSystemTime(second + 600);
      world.gitlab.moveProject(IDS.tool, IDS.acme);
      const real = await deliver(hook);
      await runStarted();
      expect({ real, shares: allShares(world.gitlab) }, "GitLab's hook was dropped as a duplicate of the copy sent before the transfer: acme/tool keeps its stray share").toEqual({
        real: expect.objectContaining({ duplicates: 0, started: [`project:${IDS.tool}`] }),
        shares: expect.not.arrayContaining([`p${IDS.tool}:${IDS.partners}`]),
      });
    } finally {
      vi.useRealTimers();
    }
  });
});
