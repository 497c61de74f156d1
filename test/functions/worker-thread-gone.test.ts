/**
 * A chat command's answer that Slack does not take. Slack takes posts to a command's response_url for 30
 * minutes from the command; the Worker runs a command that waited up to 25 minutes in its queue, and the run
 * may take minutes more: an `enforce --apply` that waited 24 minutes and ran 6 ended after Slack stopped
 * taking posts, and nobody in Slack was told of the shares it removed (chat runs post no webhook summary);
 * nor were they when Slack failed the one post (a 503) (the fourth chat review's findings). A run that
 * changed something whose answer the thread did not take is told on the deployment's webhook now; so is one
 * that may have (hostile review 14): a `pipeline --apply` whose POST's answer was lost (status `unknown`), or
 * whose pipeline ran another commit than the one checked and could not be cancelled (status `failed`, the
 * pipeline still running with Warden's identity), was left in the log alone.
 *
 * Time: only `Date` is faked (sockets and timers are real). The GitLab simulator moves the clock 6 minutes
 * on its first request, as a sweep of a large scope takes minutes. The Slack stand-in below refuses a post
 * to a response_url more than 30 minutes after the command, as Slack does (404 expired_url).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { generateOrganisation, type SimProject } from "../../sim/gitlab/index.ts";
import { applyingEnforce } from "../support/chat-command.ts";
import { CHAT, CHAT_PIPELINE_POLICY } from "../support/policies.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { lambdaContext, SECRETS } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

/** Slack's window for posts to a response_url, from the command. */
const RESPONSE_URL_SECONDS = 30 * 60;

let slack: ScriptedServer;
const accepted: { path: string; text: string }[] = [];
const refused: { path: string; status: number; answer: string }[] = [];
/** Posts to a response_url to answer 503 before Slack takes one (a transient failure of Slack's). */
let unavailable = 0;

beforeAll(async () => {
  // A response_url's path carries the command's time here (/commands/T0001/<sentAt>/…), so the
  // stand-in knows when Slack issued it; Slack answers 404 expired_url once its 30 minutes are up.
  slack = await scriptedServer((req, res) => {
    const answer = (status: number, text: string) => res.writeHead(status, { "content-type": "text/plain" }).end(text);
    const text = (JSON.parse(req.body) as { text?: string }).text ?? "";
    const issued = /^\/commands\/T0001\/(\d+)\//.exec(req.url)?.[1];
    if (req.url.startsWith("/commands/") && unavailable > 0) {
      unavailable--;
      refused.push({ path: req.url, status: 503, answer: "service_unavailable" });
      return answer(503, "service_unavailable");
    }
    if (issued !== undefined && Date.now() / 1000 > Number(issued) + RESPONSE_URL_SECONDS) {
      refused.push({ path: req.url, status: 404, answer: "expired_url" });
      return answer(404, "expired_url");
    }
    accepted.push({ path: req.url, text });
    answer(200, "ok");
  });
});
afterAll(() => slack.close());

// After the stand-in above: the secret names its webhook.
const world = lambdaWorld({
  dynamo: true,
  policy: CHAT_PIPELINE_POLICY,
  // The deployment's webhook is on the stand-in too: a fix that tells the channel there is seen.
  secret: () => JSON.stringify({ ...SECRETS, slackWebhookUrl: `${slack.origin}/services/T0001/B0001/hook-secret-0123456789abcdef` }),
  gitlab: () => ({ dataset: generateOrganisation({ projects: 60, seed: 11 }).dataset }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false" }),
});

afterEach(() => {
  vi.useRealTimers();
  accepted.length = 0;
  refused.length = 0;
  unavailable = 0;
});

/** An applying `/warden enforce` sent at `sentAt`, run by the Worker; what it removed, and what the webhook was told. */
async function applyingCommand(sentAt: number) {
  const event = applyingEnforce(slack.origin, sentAt);
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  const result = (await handler(event as never, lambdaContext({ functionName: "warden-test-Worker" }))) as { posted: boolean };
  const removed = world.gitlab.counters.byRoute["DELETE /projects/:id/share/:group_id"] ?? 0;
  const webhook = accepted.filter(({ path }) => path.startsWith("/services/"));
  return { result, removed, webhook };
}

describe("a chat command whose answer the thread does not take", () => {
  it("tells the deployment's webhook what it removed, its response_url having expired (enforce --apply that waited 24 minutes and runs 6)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    // Waited 24 minutes in the Worker's queue: under its 25-minute limit, so it runs.
    const sentAt = Math.floor(Date.now() / 1000) - 24 * 60;
    let moved = false;
    world.gitlab.beforeAnswer(() => {
      if (moved) return;
      moved = true;
      // The sweep's examination of a large scope: 6 minutes.
      vi.setSystemTime(Date.now() + 6 * 60_000);
    });
    const { result, removed, webhook } = await applyingCommand(sentAt);
    expect(removed).toBeGreaterThan(0);
    expect(result.posted).toBe(false);
    expect(refused).toContainEqual(expect.objectContaining({ status: 404, answer: "expired_url" }));
    expect(webhook).toHaveLength(1);
    expect(webhook[0]!.text).toMatch(/remov/i);
  });

  it("tells the deployment's webhook what it removed, Slack having failed the one post (a 503)", async () => {
    unavailable = 1;
    const { result, removed, webhook } = await applyingCommand(Math.floor(Date.now() / 1000));
    expect(removed).toBeGreaterThan(0);
    expect(result.posted).toBe(false);
    expect(webhook).toHaveLength(1);
    expect(webhook[0]!.text).toMatch(/remov/i);
  });
});

/** An applying `/warden pipeline` on main of one of acme/platform's projects, run by the Worker, Slack failing its one post (a 503). */
async function startPipeline(project: SimProject) {
  unavailable = 1;
  const sentAt = Math.floor(Date.now() / 1000);
  const event: WorkerEvent = {
    command: { job: "pipeline", project: project.path_with_namespace, ref: "main", variables: [], apply: true },
    responseUrl: `${slack.origin}/commands/T0001/${sentAt}/${crypto.randomUUID()}`,
    user: { id: CHAT.applier, name: "ada" },
    channelId: CHAT.channel,
    correlationId: crypto.randomUUID(),
    sentAt,
  };
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  const result = (await handler(event as never, lambdaContext({ functionName: "warden-test-Worker" }))) as { posted: boolean };
  return { result, webhook: accepted.filter(({ path }) => path.startsWith("/services/")) };
}

const platform = (): SimProject => world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;

describe("a pipeline that may be running, whose answer the thread did not take", () => {
  it("tells the deployment's webhook when GitLab's answer to the pipeline POST was lost (status unknown)", async () => {
    const project = platform();
    world.gitlab.addFaults({ kind: "apply-then-status", status: 502, method: "POST", route: "/projects/:id/pipeline", times: 1 });
    const { result, webhook } = await startPipeline(project);
    // GitLab did start it: the answer alone was lost.
    expect(world.gitlab.pipelines).toEqual([expect.objectContaining({ project_id: project.id, ref: "main" })]);
    expect(result.posted).toBe(false);
    expect(webhook).toHaveLength(1);
    expect(webhook[0]!.text).toMatch(/unknown|failed/i);
  });

  it("tells the deployment's webhook when the pipeline ran another commit and could not be cancelled", async () => {
    const project = platform();
    // A push between the checks and the start: the pipeline runs a commit nobody checked; the cancel fails.
    const off = world.gitlab.beforeAnswer(({ method, route }) => {
      if (method === "POST" && route === "POST /projects/:id/pipeline") {
        off();
        world.gitlab.repositories.commit(project, { ".gitlab-ci.yml": "steal:\n  script: ./exfiltrate.sh\n" });
      }
    });
    world.gitlab.addFaults({ kind: "status", status: 500, method: "POST", route: "/projects/:id/pipelines/:pipeline_id/cancel", times: 1 });
    const { result, webhook } = await startPipeline(project);
    expect(world.gitlab.pipelines).toHaveLength(1);
    expect(result.posted).toBe(false);
    expect(webhook).toHaveLength(1);
    expect(webhook[0]!.text).toMatch(/failed/i);
  });
});
