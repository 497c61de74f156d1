/**
 * With the policy in a GitLab repository, chat-ops cannot judge the caller and starts the Worker for
 * anyone in the Slack workspace (test/functions/chatops.test.ts pins that); the Worker judges the
 * caller once the policy has been read. When that read fails, whoever asked, listed in
 * chatops.users or not, is told only that the command could not be checked: the failure's text
 * (the policy's location, its rules, GitLab's address and answer) stays in the function's log.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { lambdaContext, SECRETS } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";

const APPLIER = "U012ABCDEF";
const CHANNEL = "C0123456";
/** In the workspace, in no list of the policy. */
const OUTSIDER = "U999OUTSIDER";
const PATH = "policies/warden.yaml";
/** A policy under review: valid until a bad merge; the Worker reads whatever its branch holds. */
const POLICY = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
chatops:
  slack:
    users: ["${APPLIER}"]
    channels: ["${CHANNEL}"]
    applyUsers: ["${APPLIER}"]
`;
/** The same policy after a merge that broke it: a new rule names, with a typo (a space), a group the outsider should not learn of. */
const BROKEN = POLICY.replace('      - group: "acme/**"\n', '      - group: "acme/**"\n      - group: "secret-mergers-and-acquisitions/project falcon"\n');

let slack: ScriptedServer;
beforeAll(async () => {
  slack = await scriptedServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
});
afterAll(() => slack.close());
const world = lambdaWorld({
  dynamo: true,
  gitlab: () => ({ dataset: compareWorld(), tokens: { [SECRETS.gitlabToken]: { admin: true } } }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", WARDEN_POLICY: undefined, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH }),
});
beforeEach(() => {
  slack.received.length = 0;
});

function event(command: WorkerEvent["command"], userId: string): WorkerEvent {
  return { command, responseUrl: `${slack.origin}/commands/T0001/1234/abcd`, user: { id: userId, name: "eve" }, channelId: "D0DIRECT", correlationId: crypto.randomUUID() };
}

async function invoke(payload: WorkerEvent) {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return handler(payload as never, lambdaContext({ functionName: "warden-test-Worker" }));
}

const posted = () => slack.received.map((r) => JSON.parse(r.body) as { response_type: string; text: string });

function commitPolicy(text: string) {
  const repo = world.gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  world.gitlab.repositories.commit(repo, { [PATH]: text });
}

describe("what a caller the policy does not list is told when the policy cannot be read", () => {
  it("control: with a readable policy the outsider is refused, and told only that", async () => {
    commitPolicy(POLICY);
    await invoke(event({ job: "enforce", apply: false }, OUTSIDER));
    expect(posted()).toEqual([{ response_type: "ephemeral", text: `:no_entry: user ${OUTSIDER} may not run commands` }]);
  });

  it("an invalid policy on the branch: the outsider is told no more than that Warden could not check the command", async () => {
    commitPolicy(BROKEN);
    await invoke(event({ job: "enforce", apply: false }, OUTSIDER));
    const [message] = posted();
    expect(message!.response_type).toBe("ephemeral");
    // Before: the policy's project, path and commit, and the rule's text.
    expect(message!.text).toBe(":x: Warden could not check `enforce` against its policy, so nothing was run (the function's log says why).");
    expect.soft(message!.text).not.toContain("secret-mergers-and-acquisitions");
    expect.soft(message!.text).not.toContain(POLICY_PROJECT);
    expect.soft(message!.text).not.toContain(PATH);
  });

  it("GitLab failing the policy read: the outsider is not shown GitLab's address, the policy's location or GitLab's answer", { timeout: 60_000 }, async () => {
    commitPolicy(POLICY);
    world.gitlab.addFaults({ kind: "status", status: 503, message: "upstream gitlab-internal-7.corp.example:8080 unavailable", times: 20 });
    await invoke(event({ job: "workflows", apply: false }, OUTSIDER));
    const [message] = posted();
    expect(message!.response_type).toBe("ephemeral");
    expect(message!.text).toBe(":x: Warden could not check `workflows` against its policy, so nothing was run (the function's log says why).");
    expect.soft(message!.text).not.toContain("gitlab-internal-7.corp.example");
    expect.soft(message!.text).not.toContain(new URL(world.gitlab.url).host);
    expect.soft(message!.text).not.toContain(POLICY_PROJECT);
  });

  it("the same for /warden exempt, whose refusal of an outsider also waits for the policy's read", async () => {
    commitPolicy(BROKEN);
    await invoke(event({ job: "exempt", project: "acme/app/api", group: "strangers", reason: "r", apply: true }, OUTSIDER));
    const [message] = posted();
    expect(message!.response_type).toBe("ephemeral");
    expect(message!.text).toBe(":x: Warden could not check `exempt` against its policy, so nothing was run (the function's log says why).");
    expect.soft(message!.text).not.toContain("secret-mergers-and-acquisitions");
    expect.soft(message!.text).not.toContain(POLICY_PROJECT);
  });
});
