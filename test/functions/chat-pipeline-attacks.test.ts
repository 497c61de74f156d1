/**
 * `/warden pipeline` as attackers with a Slack account in the workspace use it, end to end. The slash
 * command is signed as Slack signs it and sent to chat-ops; chat-ops' invoke of the Worker is taken from
 * the mocked Lambda API and handed to the Worker, which runs the job against the GitLab simulator and
 * posts to a loopback response_url.
 */
import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { generateOrganisation, type SimProject } from "../../sim/gitlab/index.ts";
import { CHAT, CHAT_PIPELINE_POLICY } from "../support/policies.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { lambdaContext, signedCommand } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const { applier: APPLIER, viewer: VIEWER } = CHAT;
// Beside the shared rules, one for every project's main: an organisation that trusts any protected main.
const POLICY = CHAT_PIPELINE_POLICY.replace("pipelines:\n  allow:\n", 'pipelines:\n  allow:\n    - project: "**"\n      refs: ["main"]\n');

const lambda = mockClient(LambdaClient);
let slack: ScriptedServer;
const world = lambdaWorld({
  dynamo: true,
  policy: POLICY,
  gitlab: () => ({ dataset: generateOrganisation({ projects: 120, seed: 7 }).dataset, recordRequests: true }),
  env: () => ({ WARDEN_WORKER_FUNCTION: "warden-test-Worker", WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false" }),
});

beforeAll(async () => {
  slack = await scriptedServer((_req, res) => res.end("ok"));
});
afterAll(() => slack.close());
beforeEach(() => {
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
  slack.received.length = 0;
});

/** One slash command typed by `user`, through chat-ops and the Worker as AWS runs them: the acknowledgement and what was posted. */
async function chat(text: string, user: string = APPLIER): Promise<{ ack: string; posted: string }> {
  vi.resetModules();
  const { handler: chatops } = await import("../../functions/chatops.ts");
  const { handler: worker } = await import("../../functions/worker.ts");
  const responseUrl = `${slack.origin}/commands/T0001/777/${crypto.randomUUID()}`;
  const ack = (await chatops(signedCommand({ text, user_id: user, response_url: responseUrl }), lambdaContext())) as APIGatewayProxyStructuredResultV2;
  for (const call of lambda.commandCalls(InvokeCommand)) {
    await worker(JSON.parse(Buffer.from(call.args[0].input.Payload as Uint8Array).toString()), lambdaContext({ functionName: "warden-test-Worker" }));
  }
  return { ack: String(ack.body), posted: slack.received.map((r) => r.body).join("\n") };
}

function platformProject(): SimProject {
  return world.gitlab.dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/platform/"))!;
}

describe("/warden pipeline: what a listed user who may not apply learns from a dry run", () => {
  // GitLab runs a remote CI file from the URL the project's CI/CD setting names; a URL that needs a
  // credential carries it there (user:password, or a signed or token query), as remote includes take no
  // headers. The setting is a Maintainer's (its API field is shown only to a token that can read the
  // project's code): Warden's token reads it, and the refusal quoted it whole to whoever typed the command.
  it("never quotes a credential held in the user:password or the query of a project's remote CI file URL", async () => {
    const project = platformProject();
    project.ci_config_path = "https://deploy-bot:Pw-4f9c2e81d7b3a6@ci-config.internal.example/templates/deploy.yml?X-Amz-Signature=9b1e77c0a4d2f3e6b8a1c5d9e7f2a4b6";
    const { posted } = await chat(`pipeline ${project.path_with_namespace} main`, VIEWER);
    expect(world.gitlab.pipelines).toEqual([]);
    // Refused, as it must be: the file is not one of the protected ref.
    expect(posted).toContain("runs the CI file its settings name");
    expect(posted).not.toContain("Pw-4f9c2e81d7b3a6");
    expect(posted).not.toContain("9b1e77c0a4d2f3e6b8a1c5d9e7f2a4b6");
  });
});

describe("/warden pipeline: what a viewer learns of a project that moved out of the rules", () => {
  // The typed path is judged, then the path GitLab resolves it to (an old path cannot borrow another's rule). The
  // refusal of the second quoted that path: a project moved into a private group the viewer is no member of was
  // found through its old path (GitLab redirects it for Warden's administrator token; a non-member gets 404) and
  // its new place posted to the viewer (a third review of chat-ops).
  it("refuses it by the path typed, never naming where it is now", async () => {
    const project = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === "acme/platform/infra-tools/Gateway-2")!;
    world.gitlab.moveProject(project.id, world.gitlab.dataset.groups.find((g) => g.full_path === "acme/security")!.id);
    world.gitlab.renameProject(project.id, "red-team-implant-tracker");
    // DEPLOY_ENV: the platform rule allows it, the "**" rule (which covers the new path on main) does not.
    const { posted } = await chat("pipeline acme/platform/infra-tools/Gateway-2 main DEPLOY_ENV=prod", VIEWER);
    expect(world.gitlab.pipelines).toEqual([]);
    expect(posted).toContain("is not at that path (moved or renamed since, or named by id), and no pipelines.allow rule allows this pipeline where it is");
    expect(posted).not.toMatch(/red-team-implant-tracker|acme\/security/);
  });
});

describe("/warden pipeline --apply: an applyUser cannot reach past the variables the policy allows", () => {
  // The policy allows DEPLOY_ENV by name, so any value may be given; but GitLab expands a `$NAME` in a
  // pipeline variable's value (the API has no raw flag for it): `DEPLOY_ENV=$PROD_DB_PASSWORD` makes the job
  // see the project's protected variable wherever it prints or sends $DEPLOY_ENV. The pipeline runs on a
  // protected ref as Warden's user, so protected variables are there, which the requester, a Developer
  // at most, could never read with a pipeline of their own. A value must reach the job as typed: `$`
  // refused at once, naming the variable and never its value. So is the same reference in its Windows
  // form, %NAME%, which GitLab's expander takes as well (it passed the $ check: a third review of chat-ops).
  it.each(["DEPLOY_ENV=$PROD_DB_PASSWORD", "DEPLOY_ENV=prod-${CI_JOB_TOKEN}", "DEPLOY_ENV=%PROD_DB_PASSWORD%", "DEPLOY_ENV=prod-%CI_JOB_TOKEN%"])("refuses a value GitLab would expand into another CI/CD variable (%s), starting nothing", async (assignment) => {
    const project = platformProject();
    const { ack, posted } = await chat(`pipeline ${project.path_with_namespace} main ${assignment} --apply`);
    expect(JSON.parse(ack).text).toContain(`variable 1's value holds "$" or a %NAME% reference, which GitLab would expand with the pipeline's other variables`);
    expect(ack + posted).not.toMatch(/PROD_DB_PASSWORD|CI_JOB_TOKEN/);
    expect(world.gitlab.pipelines).toEqual([]);
    expect(world.gitlab.counters.requests).toBe(0);
  });
});

describe("/warden pipeline: a project path no GitLab path can be", () => {
  // "." and ".." passed the path check (GitLab's path characters), and lib/gitlab builds the request with
  // new URL(), which resolves dot segments: GET /api/v4/projects/. went out as /api/v4/projects/ (on a
  // real GitLab, the listing of every project the token sees, taken for one project) and .. as /api/v4/.
  it.each([["."], [".."], ["acme/../platform"]])("refuses %j at once, and sends GitLab no request", async (path) => {
    const { ack } = await chat(`pipeline ${path} main`);
    expect(world.gitlab.requests.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
    expect(JSON.parse(ack).text).toMatch(/^pipeline's project is a project's full path/);
  });

  // A ref is refused past 4,096 bytes, unquoted; a project path had no bound: 20,000 characters were quoted
  // back whole in the acknowledgement, carried to the Worker, sent to GitLab and quoted again in the result.
  it("refuses a 20,000-character project path as malformed, quoting none of it and starting nothing", async () => {
    const { ack, posted } = await chat(`pipeline acme/platform/${"a".repeat(20_000)} main`);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
    expect(posted).toBe("");
    expect(ack.length).toBeLessThan(2_000);
  });
});
