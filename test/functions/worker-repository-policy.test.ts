/**
 * The Worker with the policy in a GitLab repository, against the simulator. `/warden exempt` (issue
 * 30.4): an applyUser's request opens exactly one merge request whose one commit adds the entry;
 * anyone else is refused on the policy read alone; the requester's text arrives escaped in Slack and
 * in GitLab; the POSTs are sent once, whatever GitLab answers. And, as chat-ops cannot judge a caller
 * without the policy, it starts the Worker for anyone in the workspace: when the policy cannot be
 * read, whoever asked is told only that the command could not be checked, the failure's text (the
 * policy's location, its rules, GitLab's address and answer) staying in the function's log.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerEvent } from "../../functions/shared/runs/job-request.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { startGitLabSim, type GitLabSim, type SimProject } from "../../sim/gitlab/index.ts";
import { compareWorld, POLICY_PROJECT } from "../support/compare-world.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";
import { emfRecords } from "../support/emf.ts";
import { captureLogs, lambdaContext, SECRETS, writePolicy } from "../support/lambda.ts";
import { lambdaWorld } from "../support/lambda-world.ts";
import { ephemeralReply, slackLinks } from "../support/slack-webhook-receiver.ts";

const APPLIER = "U012ABCDEF";
const VIEWER = "U034GHIJKL";
const CHANNEL = "C0123456";
const PATH = "policies/warden.yaml";
const POLICY = `# Acme's access policy: reviewed by the platform team.
version: 1
gitlab:
  scope: { groups: [acme] }   # acme only
  shares:
    allow:
      - group: "acme/**"
    exempt:
      - project: "acme/legacy/**"   # until the migration
        reason: migration
chatops:
  slack:
    users: ["${APPLIER}", "${VIEWER}"]
    channels: ["${CHANNEL}"]
    applyUsers: ["${APPLIER}"]
# end of policy
`;
/** The same policy after a merge that broke it: a new rule names, with a typo (a space), a group an outsider should not learn of. */
const BROKEN = POLICY.replace('      - group: "acme/**"\n', '      - group: "acme/**"\n      - group: "secret-mergers-and-acquisitions/project falcon"\n');
/** In the workspace, in no list of the policy, writing from a direct message. */
const OUTSIDER = "U999OUTSIDER";
const OUTSIDE = { user: { id: OUTSIDER, name: "eve" }, channelId: "D0DIRECT" };
/** Slack mrkdwn (a channel mention, a link with a label of its choosing) and Markdown with a GitLab mention. */
const HOSTILE = "<!channel> see <https://evil.example|the ticket> @all **now** [x](javascript:alert(1))";
const EXEMPT = { job: "exempt", project: "acme/app/api", group: "strangers", until: "2099-12-31", reason: HOSTILE, apply: true } as const;
const MR_POST = "POST /projects/:id/merge_requests";
const COMMIT_POST = "POST /projects/:id/repository/commits";

let slack: ScriptedServer;
let gitlab: GitLabSim;
let repo: SimProject;

beforeAll(async () => {
  slack = await scriptedServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
});
afterAll(() => slack.close());
const world = lambdaWorld({
  dynamo: true,
  gitlab: () => ({ dataset: compareWorld(), tokens: { [SECRETS.gitlabToken]: { admin: true } } }),
  env: () => ({ WARDEN_SLACK_RESPONSE_ORIGIN: slack.origin, WARDEN_REPORT_ONLY: "false", WARDEN_POLICY: undefined, WARDEN_POLICY_PROJECT: POLICY_PROJECT, WARDEN_POLICY_PATH: PATH }),
});
beforeEach(() => {
  gitlab = world.gitlab;
  repo = gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  gitlab.repositories.commit(repo, { [PATH]: POLICY });
  slack.received.length = 0;
});

function event(command: WorkerEvent["command"], over: Partial<WorkerEvent> = {}): WorkerEvent {
  return { command, responseUrl: `${slack.origin}/commands/T0001/1234/abcd`, user: { id: APPLIER, name: "ada" }, channelId: CHANNEL, correlationId: "req-chatops-1", ...over };
}

async function invoke(payload: WorkerEvent) {
  vi.resetModules();
  const { handler } = await import("../../functions/worker.ts");
  return handler(payload as never, lambdaContext({ functionName: "warden-test-Worker" }));
}

const posted = () => slack.received.map((r) => JSON.parse(r.body) as { response_type: string; text: string; blocks?: { text: { text: string } }[] });
const writes = () => Object.keys(gitlab.counters.byRoute).filter((route) => !route.startsWith("GET "));
const exemptBranches = () => repo.branches.filter((b) => b.startsWith("warden/exempt-"));

describe("/warden exempt in the Worker", () => {
  it("an applyUser's request opens exactly one merge request, whose one commit adds the entry and keeps the file's comments", async () => {
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await expect(invoke(event(EXEMPT))).resolves.toEqual({ posted: true });
    const lines = logs.lines();
    logs.restore();
    expect(writes().sort()).toEqual([MR_POST, COMMIT_POST].sort());
    expect(gitlab.counters.byRoute[COMMIT_POST]).toBe(1);
    expect(gitlab.counters.byRoute[MR_POST]).toBe(1);
    const [branch, ...more] = exemptBranches();
    expect(more).toEqual([]);
    const commit = gitlab.repositories.resolve(repo, branch!)!;
    const committed = commit.files.get(PATH)!.content.toString("utf8");
    expect(committed).toBe(POLICY.replace("        reason: migration\n", `        reason: migration\n      - project: acme/app/api\n        sharedWith: strangers\n        until: 2099-12-31\n        reason: ${HOSTILE}\n`));
    expect(parsePolicy(committed, "committed").gitlab!.shares.exempt.at(-1)).toMatchObject({ reason: HOSTILE, until: "2099-12-31" });
    // Authored as the token's user, naming who asked.
    expect(commit.message).toMatch(/^Exempt project acme\/app\/api shared with strangers until 2099-12-31\n\nRequested by Slack user U012ABCDEF with \/warden exempt;/);
    const mrs = gitlab.work.mergeRequests.get(repo.id)!;
    expect(mrs).toHaveLength(1);
    const mr = mrs[0]!;
    expect(mr).toMatchObject({ source_branch: branch, target_branch: "main" });
    expect(mr.description).toContain("asked by Slack user U012ABCDEF.");
    // The reason as literal Markdown: no mention, no link, no emphasis, no HTML.
    expect(mr.description).toContain("\\<\\!\u200dchannel\\> see \\<https\\:\u200d\\/\\/evil\\.example\\|the ticket\\> \\@\u200dall \\*\\*now\\*\\* \\[x\\]\\(javascript\\:alert\\(1\\)\\)");
    expect(mr.description).not.toMatch(/(^|[^\\])@all|\[x\]\(/);
    // In the channel, the merge request named and linked (the one link), the requester's text escaped for mrkdwn.
    const [message, ...others] = posted();
    expect(others).toEqual([]);
    expect(message!.response_type).toBe("in_channel");
    expect(message!.text).toBe(
      ":memo: Exemption requested by Slack user U012ABCDEF: project acme/app/api shared with strangers until 2099-12-31.\n" +
        `Merge request <${mr.web_url}|!${mr.iid}>: merging it is the approval.\n` +
        "Reason: &lt;!channel&gt; see &lt;https://evil.example|the ticket&gt; @all ＊＊now＊＊ [x](javascript:alert(1))",
    );
    expect(message!.blocks![0]!.text.text).toBe(message!.text);
    expect(slackLinks(message!)).toEqual([mr.web_url]);
    expect(JSON.stringify(message)).not.toMatch(/<!channel>|<https:\/\/evil/);
    expect(lines).toContainEqual(expect.objectContaining({ message: "exemption-requested", project: "acme/app/api", sharedWith: "strangers", asked: { user: APPLIER, channel: CHANNEL }, mergeRequest: { iid: mr.iid, url: mr.web_url } }));
  });

  it("refuses a user who may run commands but not apply, on the policy read alone: no branch, commit or merge request is asked for", async () => {
    await invoke(event(EXEMPT, { user: { id: VIEWER, name: "bob" } }));
    expect(posted()).toEqual([ephemeralReply(":no_entry: you may run Warden commands, but not request exemptions: an exemption request is a change to the policy repository, for the policy's applyUsers")]);
    expect(writes()).toEqual([]);
    // The policy's reads (its project, its branch, its file) and nothing else.
    expect(Object.keys(gitlab.counters.byRoute).sort()).toEqual(["GET /projects/:id", "GET /projects/:id/repository/files/:file_path", "GET /projects/:id/repository/branches/:branch"].sort());
    expect(exemptBranches()).toEqual([]);
  });

  it("refuses a request whose date has passed, naming its position and quoting nothing, before any request", async () => {
    await invoke(event({ ...EXEMPT, until: "2020-01-01" }));
    const [message] = posted();
    expect(message).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/^:no_entry: word 5 \(the date after until\) is not in the future \(today is \d{4}-\d{2}-\d{2} UTC\)/) });
    expect(message!.text).not.toContain("2020-01-01");
    expect(gitlab.counters.requests).toBe(0);
  });

  it("on a deployment whose policy is a bundled file, says how to name a policy repository, and reads nothing from GitLab", async () => {
    vi.stubEnv("WARDEN_POLICY_PROJECT", "");
    vi.stubEnv("WARDEN_POLICY", await writePolicy(POLICY));
    await invoke(event(EXEMPT));
    expect(posted()).toEqual([ephemeralReply(expect.stringMatching(/^:no_entry: this Warden deployment reads its policy from the file bundled at deploy, .*deploy again with WARDEN_POLICY_PROJECT \(at sst deploy\) naming the policy's GitLab project/))]);
    expect(gitlab.counters.requests).toBe(0);
  });

  it("on a report-only stage, opens nothing and reads nothing", async () => {
    vi.stubEnv("WARDEN_REPORT_ONLY", "true");
    await invoke(event(EXEMPT));
    expect(posted()).toEqual([ephemeralReply(":no_entry: this Warden deployment is report-only: it opens no merge requests (propose the exemption with warden exempt from a laptop or CI)")]);
    expect(gitlab.counters.requests).toBe(0);
  });

  it("sends the merge request's POST once when GitLab's answer is lost, and says where the commit is", async () => {
    gitlab.addFaults({ kind: "apply-then-drop", route: MR_POST, times: 1 });
    await invoke(event(EXEMPT));
    expect(gitlab.counters.byRoute[MR_POST]).toBe(1);
    expect(gitlab.counters.byRoute[COMMIT_POST]).toBe(1);
    const [message] = posted();
    // A change made, half done: in the channel, as an opened merge request is.
    expect(message!.response_type).toBe("in_channel");
    expect(message!.text).toMatch(/^:warning: Exemption requested by Slack user \S+: .*: the exemption was committed on branch warden\/exempt-acme-app-api-strangers-[0-9a-f]{8} \(commit [0-9a-f]{12}\), but the merge request could not be opened \(.*\): open it from that branch\.$/);
  });

  it("sends the commit's POST once when GitLab's answer is lost, and opens no merge request on a commit it cannot confirm", async () => {
    gitlab.addFaults({ kind: "apply-then-drop", route: COMMIT_POST, times: 1 });
    await invoke(event(EXEMPT));
    expect(gitlab.counters.byRoute[COMMIT_POST]).toBe(1);
    expect(gitlab.counters.byRoute[MR_POST]).toBeUndefined();
    const [message] = posted();
    // Told in the channel as a commit made (its branch read back), naming its branch, not as a plain failure.
    expect(message).toMatchObject({ response_type: "in_channel", text: expect.stringMatching(/^:warning: Exemption requested by Slack user \S+: .*: the exemption was committed on branch warden\/exempt-\S+ \(commit [0-9a-f]{12}\), but GitLab's answer to the commit was lost \(.*\): open the merge request from that branch\.$/) });
  });

  it("the same request again opens nothing more: its branch exists", async () => {
    await invoke(event(EXEMPT));
    await invoke(event(EXEMPT, { correlationId: "req-chatops-2" }));
    expect(gitlab.counters.byRoute[MR_POST]).toBe(1);
    expect(gitlab.work.mergeRequests.get(repo.id)).toHaveLength(1);
    expect(posted()[1]).toMatchObject({ response_type: "ephemeral", text: expect.stringMatching(/^:no_entry: branch warden\/exempt-\S+ already exists: this exemption was requested already/) });
  });

  it("escapes what GitLab answers too: a merge request address with mrkdwn in it is shown as text", async () => {
    const { exemptionReply } = await import("../../functions/shared/slack/exempt-run.ts");
    const webUrl = "https://gitlab.example/x/-/merge_requests/1?<!channel>|<https://evil.example|click>&";
    const reply = exemptionReply(EXEMPT, { mergeRequest: { title: "t", description: "d", iid: 1, webUrl } }, { userId: APPLIER, channelId: CHANNEL });
    expect(reply.text).toContain("Merge request !1 (https://gitlab.example/x/-/merge_requests/1?&lt;!channel&gt;|&lt;https://evil.example|click&gt;&amp;): merging it is the approval.");
    expect(JSON.stringify(reply)).not.toMatch(/<!channel>|<https:/);
    expect(slackLinks(reply)).toEqual([]);
  });

  it("with a notices project: the merge request links the share's open notice, which gets one note linking it; the audit line says so", async () => {
    // A world with a notices project, and Warden's notice (the token's own issue, marked) of acme/app/api's share with strangers.
    await gitlab.close();
    const dataset = compareWorld();
    dataset.projects.push({ id: 30, name: "access-notices", path: "access-notices", path_with_namespace: "security/access-notices", namespace_id: 8, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });
    // The world closes whichever simulator it holds after the test.
    gitlab = world.gitlab = await startGitLabSim({ dataset, tokens: { [SECRETS.gitlabToken]: { admin: true } } });
    repo = gitlab.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
    gitlab.repositories.commit(repo, { [PATH]: POLICY.replace("        reason: migration\n", "        reason: migration\n    notices: { project: security/access-notices }\n") });
    vi.stubEnv("GITLAB_URL", gitlab.url);
    const created = await fetch(`${gitlab.url}/api/v4/projects/30/issues`, {
      method: "POST", headers: { "private-token": SECRETS.gitlabToken, "content-type": "application/json" },
      body: JSON.stringify({ title: "Stray share", description: "<!-- warden-share: project:10:group:7 -->\nWarden's notice", labels: "warden::notice,warden-share::project:10:group:7" }),
    });
    expect(created.status).toBe(201);
    const notice = gitlab.work.issuesOf(30)[0]!;
    gitlab.resetCounters();
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    await expect(invoke(event(EXEMPT))).resolves.toEqual({ posted: true });
    const lines = logs.lines();
    logs.restore();
    expect(writes().sort()).toEqual([MR_POST, COMMIT_POST, "POST /projects/:id/issues/:iid/notes"].sort());
    const mr = gitlab.work.mergeRequests.get(repo.id)!.at(-1)!;
    const escaped = (url: string) => url.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
    expect(mr.description).toContain(`It answers Warden's stray-share notice: ${escaped(notice.web_url)}.`);
    expect(notice.notes.map((n) => n.body)).toEqual([expect.stringContaining(`An exemption for this share is proposed in merge request ${escaped(mr.web_url)} (`)]);
    expect(lines).toContainEqual(expect.objectContaining({ message: "exemption-requested", notices: [{ project: "security/access-notices", iid: notice.iid, noted: true }] }));
  });
});

describe("what a caller the policy does not list is told when the policy cannot be read", () => {
  it("control: with a readable policy the outsider is refused, and told only that", async () => {
    await invoke(event({ job: "enforce", apply: false }, OUTSIDE));
    expect(posted()).toEqual([ephemeralReply(`:no_entry: user ${OUTSIDER} may not run commands`)]);
  });

  it("an outsider's exemption reason is not checked for the jobs' credentials: a right guess of the GitLab token is told what a wrong one is", async () => {
    // Before, the reason's credential check came first, against the credentials the Worker had registered
    // as it read its secret: a guess of the token was answered "holds a credential", any other "may not run commands".
    const answers = [];
    for (const guess of [SECRETS.gitlabToken, `x${SECRETS.gitlabToken.slice(1)}`]) {
      slack.received.length = 0;
      await invoke(event({ ...EXEMPT, reason: `guess ${guess}` }, { ...OUTSIDE, correlationId: `req-guess-${answers.length}` }));
      answers.push(posted());
    }
    expect(answers).toEqual([[ephemeralReply(`:no_entry: user ${OUTSIDER} may not run commands`)], [ephemeralReply(`:no_entry: user ${OUTSIDER} may not run commands`)]]);
    // An applyUser who pastes it is told, and nothing is written.
    slack.received.length = 0;
    await invoke(event({ ...EXEMPT, reason: `see ${SECRETS.gitlabToken}` }, { correlationId: "req-pasted" }));
    expect(posted()).toEqual([ephemeralReply(expect.stringMatching(/^:no_entry: the reason \(the words after word 6\) holds a credential/) as never)]);
    expect(writes()).toEqual([]);
  });

  it("an invalid policy on the branch: the outsider is told no more than that Warden could not check the command", async () => {
    gitlab.repositories.commit(repo, { [PATH]: BROKEN });
    await invoke(event({ job: "enforce", apply: false }, OUTSIDE));
    const [message] = posted();
    expect(message!.response_type).toBe("ephemeral");
    // Before: the policy's project, path and commit, and the rule's text.
    expect(message!.text).toBe(":x: Warden could not check `enforce` against its policy, so nothing was run (the function's log says why).");
    expect.soft(message!.text).not.toContain("secret-mergers-and-acquisitions");
    expect.soft(message!.text).not.toContain(POLICY_PROJECT);
    expect.soft(message!.text).not.toContain(PATH);
  });

  it("GitLab failing the policy read: the outsider is not shown GitLab's address, the policy's location or GitLab's answer", { timeout: 60_000 }, async () => {
    gitlab.addFaults({ kind: "status", status: 503, message: "upstream gitlab-internal-7.corp.example:8080 unavailable", times: 20 });
    await invoke(event({ job: "workflows", apply: false }, OUTSIDE));
    const [message] = posted();
    expect(message!.response_type).toBe("ephemeral");
    expect(message!.text).toBe(":x: Warden could not check `workflows` against its policy, so nothing was run (the function's log says why).");
    expect.soft(message!.text).not.toContain("gitlab-internal-7.corp.example");
    expect.soft(message!.text).not.toContain(new URL(gitlab.url).host);
    expect.soft(message!.text).not.toContain(POLICY_PROJECT);
  });

  it("the same for /warden exempt, whose refusal of an outsider also waits for the policy's read", async () => {
    gitlab.repositories.commit(repo, { [PATH]: BROKEN });
    await invoke(event({ job: "exempt", project: "acme/app/api", group: "strangers", reason: "r", apply: true }, OUTSIDE));
    const [message] = posted();
    expect(message!.response_type).toBe("ephemeral");
    expect(message!.text).toBe(":x: Warden could not check `exempt` against its policy, so nothing was run (the function's log says why).");
    expect.soft(message!.text).not.toContain("secret-mergers-and-acquisitions");
    expect.soft(message!.text).not.toContain(POLICY_PROJECT);
  });
});

// docs/security.md: "a policy project named by path is pinned per warm container". Every other command reads
// the policy through loadPolicy's reader, which keeps the id its first read found; the exemption request read
// it by path alone: whoever took the path over was authorised by their own policy, and Warden committed in
// their project, opened a merge request and announced it under its own name.
describe("/warden exempt in a warm Worker, the policy project named by path", () => {
  it("after the policy project moved and another was created at its path, the request is refused as every other command of the container is: nothing committed in the impostor", async () => {
    const MALLORY = "U0MALLORY1";
    vi.resetModules();
    const { handler } = await import("../../functions/worker.ts");
    const context = lambdaContext({ functionName: "warden-test-Worker" });
    // The container's first command reads the policy: the project's id is pinned from here on.
    await handler(event({ job: "enforce", apply: false }) as never, context);
    // The takeover: the policy project renamed, a project created at its old path, whose policy lets its author ask.
    const old = repo.path;
    gitlab.renameProject(repo.id, `${old}-archived`);
    const impostor = gitlab.createProject(repo.namespace_id, old);
    gitlab.repositories.commit(impostor, { [PATH]: POLICY.replaceAll(APPLIER, MALLORY) });
    gitlab.resetCounters();
    slack.received.length = 0;
    // Each command is its own (the Worker runs a correlation id once).
    await handler(event(EXEMPT, { user: { id: MALLORY, name: "mallory" }, correlationId: "req-chatops-2" }) as never, context);
    expect(posted()).toHaveLength(1);
    expect(writes()).toEqual([]);
    expect(impostor.branches.filter((b) => b.startsWith("warden/exempt-"))).toEqual([]);
    expect(posted().map((p) => p.text).join("\n")).not.toMatch(/Exemption requested|Merge request/);
  });
});

/**
 * The read of the policy is cut at the invocation's deadline: a GitLab (or a proxy) answering it 429 with a
 * long Retry-After (60-900 s; lib/http waits up to 15 minutes) held the Worker until Lambda ended it (here
 * middy's own timeout, as the runtime would), with nobody told: no post, no `job failed` line, no metric.
 */
describe("the policy read and the invocation's deadline", () => {
  it("a policy read GitLab answers 429 with a 10-minute Retry-After is cut at the deadline: the invocation ends normally, the user told, the failure logged", { timeout: 40_000 }, async () => {
    gitlab.addFaults({ kind: "429", headers: "retry-after", seconds: 600, method: "GET", times: 100 });
    const logs = captureLogs();
    vi.stubEnv("POWERTOOLS_LOG_LEVEL", "INFO");
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    vi.resetModules();
    const { handler } = await import("../../functions/worker.ts");
    // 15 s left in the invocation: the deadline signal (deadline.ts) fires at 5 s, 10 s kept for reporting.
    const remainingMs = 15_000;
    const outcome = await handler(event({ job: "enforce", apply: false }, { sentAt: Math.floor(Date.now() / 1000) }) as never, lambdaContext({ functionName: "warden-test-Worker", remainingMs })).then(
      () => "returned",
      (err: unknown) => `failed: ${String(err)}`,
    );
    const lines = logs.lines();
    logs.restore();
    // Before: "failed: TimeoutError" at 15 s (middy ending the invocation, as Lambda would), nothing posted, no `job failed`.
    expect(outcome).toBe("returned");
    expect(slack.received).toHaveLength(1);
    expect(lines).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/job failed|chat-command not run/) as string }));
    // The log names what was cut; the caller, not yet checked against the policy, learns nothing of why.
    expect(lines).toContainEqual(expect.objectContaining({ message: "job failed", error: expect.stringContaining(`the policy's read from ${POLICY_PROJECT} was cut off (the Lambda times out in 10 s)`) as string }));
    expect(slack.received[0]!.body).toContain("could not check `enforce` against its policy");
    expect(emfRecords(lines)).toEqual([expect.objectContaining({ RunFailed: 1 })]);
  });
});
