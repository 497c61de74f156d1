/** sst.config.ts deployed under Pulumi's mocks (test/support/sst/deploy.ts): its functions, schedules, settings from the deploy environment, table and bucket. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { NODE_OPTIONS } from "../lib/config/node-options.ts";
import { BUCKET, CLAIMS, DEPLOY_ENV, deploy, ENDPOINT_SECRET, EVENTS_SECRET, expectRefused, refusals, SECRET, type FunctionView, type Statement } from "./support/sst/deploy.ts";

describe("sst.config.ts", () => {
  it("points every handler at a module that exports that function", async () => {
    const deployed = await deploy();
    const handlers = deployed.functions().map(([, f]) => f.lambda["handler"] as string);
    expect(handlers.sort()).toEqual(["functions/chatops.handler", "functions/enforce.handler", "functions/watch.handler", "functions/worker.handler", "functions/workflows.handler"]);
    // Imported without the deploy settings: a handler module must load anywhere, and must not reach AWS doing so.
    vi.stubEnv("WARDEN_SECRET_ARN", undefined);
    for (const handler of handlers) {
      const [file, exported] = [handler.slice(0, handler.lastIndexOf(".")), handler.slice(handler.lastIndexOf(".") + 1)];
      const module = (await import(/* @vite-ignore */ pathToFileURL(resolve(`${file}.ts`)).href)) as Record<string, unknown>;
      expect(typeof module[exported], handler).toBe("function");
    }
    vi.unstubAllEnvs();
  });

  it("schedules enforce daily and workflows hourly, with the fixed schedule input", async () => {
    const deployed = await deploy();
    expect(deployed.schedule("Enforce")).toMatchObject({ scheduleExpression: "rate(1 day)", state: "ENABLED", target: { input: JSON.stringify({ source: "schedule" }) } });
    expect(deployed.schedule("Workflows")).toMatchObject({ scheduleExpression: "rate(1 hour)", state: "ENABLED", target: { input: JSON.stringify({ source: "schedule" }) } });
    // The Watch polls GitLab's audit events each minute; WARDEN_WATCH_SCHEDULE=off (GitLab Free) keeps the function for console runs.
    expect(deployed.schedule("Watch")).toMatchObject({ scheduleExpression: "rate(1 minute)", state: "ENABLED", target: { arn: deployed.fn("Watch").arn, input: JSON.stringify({ source: "schedule" }) } });
    const off = await deploy("staging", { WARDEN_WATCH_SCHEDULE: "off" });
    expect(off.schedule("Watch")).toMatchObject({ state: "DISABLED" });
    expect(off.fn("Watch").lambda).toMatchObject({ handler: "functions/watch.handler" });
  });

  it("schedules the Enforce workflow's published version by its qualified ARN, and creates no second function for it", async () => {
    const deployed = await deploy();
    const enforce = deployed.fn("Enforce");
    expect(enforce.lambda["publish"]).toBe(true);
    expect(deployed.schedule("Enforce")["target"]).toMatchObject({ arn: `${enforce.arn}:1`, input: JSON.stringify({ source: "schedule" }) });
    expect(deployed.one("aws:iam/role:Role", "EnforceScheduleRole")["inlinePolicies"][0].policy).toContain(`"${enforce.arn}:1"`);
    expect(deployed.functions().filter(([, f]) => f.lambda["handler"] === "functions/enforce.handler").map(([name]) => name)).toEqual(["Enforce"]);
    // Workflows stays a plain function, which its cron creates and invokes unqualified.
    const workflows = deployed.fn("Workflows");
    expect(workflows.component).toBe("WorkflowsScheduleHandler");
    expect(deployed.schedule("Workflows")["target"]).toMatchObject({ arn: workflows.arn });
    expect(deployed.outputs).toMatchObject({ enforceFunction: enforce.physicalName, enforceVersion: "1" });
  });

  it("runs Enforce as a durable function: 15-minute invocations, a 24-hour execution, 14 days of history", async () => {
    const deployed = await deploy();
    const enforce = deployed.fn("Enforce");
    expect(enforce.lambda).toMatchObject({ handler: "functions/enforce.handler", runtime: "nodejs24.x", timeout: 900, durableConfig: { executionTimeout: 86_400, retentionPeriod: 14 } });
    expect(enforce.statements.length).toBeGreaterThan(0);
    expect(deployed.one("aws:iam/role:Role", "EnforceHandlerRole")["managedPolicyArns"]).toContain("arn:aws:iam::aws:policy/service-role/AWSLambdaBasicDurableExecutionRolePolicy");
    // The handler's lease and deadline follow the execution timeout; only Enforce has one.
    expect(enforce.env).toMatchObject({ WARDEN_EXECUTION_TIMEOUT_SECONDS: "86400" });
    for (const [name, f] of deployed.functions()) if (name !== "Enforce") expect(f.env, name).not.toHaveProperty("WARDEN_EXECUTION_TIMEOUT_SECONDS");
    // SST's WorkflowArgs has no retries, url or versioning.
    const workflow = deployed.one("sst:aws:Workflow", "Enforce");
    for (const option of ["retries", "url", "versioning"]) expect(workflow).not.toHaveProperty(option);
  });

  it("takes the execution timeout and retention from WARDEN_ENFORCE_EXECUTION_HOURS and WARDEN_EXECUTION_RETENTION_DAYS, within Lambda's limits", async () => {
    const longest = await deploy("staging", { WARDEN_ENFORCE_EXECUTION_HOURS: "8784", WARDEN_EXECUTION_RETENTION_DAYS: "90" });
    expect(longest.fn("Enforce").lambda["durableConfig"]).toEqual({ executionTimeout: 8784 * 3600, retentionPeriod: 90 });
    expect(longest.fn("Enforce").env).toMatchObject({ WARDEN_EXECUTION_TIMEOUT_SECONDS: String(8784 * 3600) });
    expect(longest.one("sst:aws:Workflow", "Enforce")).toMatchObject({ timeout: { invocation: "15 minutes", execution: "8784 hours" }, retention: "90 days" });
    const shortest = await deploy("staging", { WARDEN_ENFORCE_EXECUTION_HOURS: "1", WARDEN_EXECUTION_RETENTION_DAYS: "1" });
    expect(shortest.one("sst:aws:Workflow", "Enforce")).toMatchObject({ timeout: { execution: "1 hour" }, retention: "1 day" });
    expect(shortest.fn("Enforce").lambda["durableConfig"]).toEqual({ executionTimeout: 3600, retentionPeriod: 1 });
    await expectRefused(["0", "-1", "1.5", "8785", "24h", "day"], (bad) => ({ WARDEN_ENFORCE_EXECUTION_HOURS: bad }), (bad) => `WARDEN_ENFORCE_EXECUTION_HOURS must be a whole number of hours from 1 to 8784, not "${bad}"`);
    await expectRefused(["0", "91", "14 days", "2.5"], (bad) => ({ WARDEN_EXECUTION_RETENTION_DAYS: bad }), (bad) => `WARDEN_EXECUTION_RETENTION_DAYS must be a whole number of days from 1 to 90, not "${bad}"`);
  });

  it("takes other schedules from the deploy environment, rate or six-field cron, and refuses a malformed one", async () => {
    const deployed = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "cron(0 3 ? * MON-FRI *)", WARDEN_WORKFLOWS_SCHEDULE: "rate(15 minutes)" });
    expect(deployed.schedule("Enforce")["scheduleExpression"]).toBe("cron(0 3 ? * MON-FRI *)");
    expect(deployed.schedule("Workflows")["scheduleExpression"]).toBe("rate(15 minutes)");
    await expectRefused(["cron(0 3 * * *)", "rate(1 days)", "rate(2 hour)", "rate(0 minutes)", "daily"], (bad) => ({ WARDEN_ENFORCE_SCHEDULE: bad }), (bad) => `WARDEN_ENFORCE_SCHEDULE: "${bad}" is not a schedule expression`);
  });

  it('turns a schedule off with "off", keeping its function for console runs', async () => {
    const enforceOff = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "off" });
    expect(enforceOff.schedule("Enforce")).toMatchObject({ state: "DISABLED", scheduleExpression: "rate(1 day)", target: { arn: `${enforceOff.fn("Enforce").arn}:1` } });
    expect(enforceOff.fn("Enforce").lambda).toMatchObject({ handler: "functions/enforce.handler" });
    expect(enforceOff.schedule("Workflows")).toMatchObject({ state: "ENABLED" });
    const workflowsOff = await deploy("staging", { WARDEN_WORKFLOWS_SCHEDULE: "off" });
    expect(workflowsOff.schedule("Enforce")).toMatchObject({ state: "ENABLED" });
    expect(workflowsOff.schedule("Workflows")).toMatchObject({ state: "DISABLED", scheduleExpression: "rate(1 hour)" });
  });

  it("every schedule it produces is a valid EventBridge Scheduler expression", async () => {
    const deployed = await deploy();
    for (const schedule of deployed.all("aws:scheduler/schedule:Schedule")) {
      expect(schedule.inputs["scheduleExpression"]).toMatch(/^(rate\(1 (minute|hour|day)\)|rate\(([2-9]|\d\d+) (minutes|hours|days)\)|cron\(\S+( \S+){5}\))$/);
    }
  });

  it("runs every function on nodejs24.x with the timeouts the jobs need, and chat-ops within Slack's reach", async () => {
    const deployed = await deploy();
    const timeouts = Object.fromEntries(deployed.functions().map(([name, f]) => [name, f.lambda["timeout"]]));
    // Watch polls each minute: an invocation that died holds its lease no longer than this.
    expect(timeouts).toEqual({ Worker: 900, Chatops: 10, Enforce: 900, Workflows: 900, Watch: 120 });
    expect(deployed.functions().every(([, f]) => f.lambda["runtime"] === "nodejs24.x")).toBe(true);
  });

  it("writes Warden's version into every bundle, which carries no package.json (lib/jobs/version.ts)", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    for (const [name, f] of (await deploy()).functions()) {
      expect(f.args["nodejs"], name).toEqual({ esbuild: { define: { __WARDEN_VERSION__: JSON.stringify(version) } } });
    }
  });

  it("lets the jobs read the jobs' secret and each public endpoint its own alone, and ships the policy file and the services' addresses only to the functions that read them", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const secretGrants = (f: FunctionView) => f.statements.filter((s) => s.actions.some((a) => a.startsWith("secretsmanager:")));
    const own: Record<string, [string, string]> = { Chatops: ["WARDEN_ENDPOINT_SECRET_ARN", ENDPOINT_SECRET], Events: ["WARDEN_EVENTS_SECRET_ARN", EVENTS_SECRET] };
    // What each function's code reaches: the public Events function hands subjects on and reads neither service nor the policy;
    // the EventsWorker, Enforce and Watch run enforce alone; Workflows only n8n's job.
    const reaches: Record<string, string[]> = { Chatops: ["GITLAB_URL", "N8N_URL"], Worker: ["GITLAB_URL", "N8N_URL"], EventsWorker: ["GITLAB_URL"], Enforce: ["GITLAB_URL"], Watch: ["GITLAB_URL"], Workflows: ["N8N_URL"], Events: [] };
    expect(deployed.functions().map(([name]) => name).sort()).toEqual(Object.keys(reaches).sort());
    for (const [name, f] of deployed.functions()) {
      const [variable, arn] = own[name] ?? ["WARDEN_SECRET_ARN", SECRET];
      expect(secretGrants(f), name).toEqual([{ actions: ["secretsmanager:GetSecretValue"], resources: [arn] }]);
      expect(f.env[variable], name).toBe(arn);
      for (const other of ["WARDEN_SECRET_ARN", "WARDEN_ENDPOINT_SECRET_ARN", "WARDEN_EVENTS_SECRET_ARN"]) if (other !== variable) expect(f.env, name).not.toHaveProperty(other);
      expect(f.args["copyFiles"], name).toEqual(name === "Events" ? undefined : [{ from: DEPLOY_ENV.WARDEN_POLICY_FILE, to: "warden.yaml" }]);
      expect(f.env, name).toMatchObject({ NODE_OPTIONS });
      expect(["GITLAB_URL", "N8N_URL"].filter((variable) => variable in f.env), name).toEqual(reaches[name]);
      for (const variable of reaches[name]!) expect(f.env[variable], name).toBe(DEPLOY_ENV[variable as "GITLAB_URL" | "N8N_URL"]);
      expect(JSON.stringify(f.env), name).not.toMatch(/gitlabToken|n8nApiKey|slackSigningSecret/);
    }
  });

  it("refuses a policy file that is not there, naming WARDEN_POLICY_FILE and the example to start from, and one given by an absolute path (SST copies it from the project's root)", async () => {
    const absolute = resolve("examples/warden.yaml");
    expect(await refusals([{ WARDEN_POLICY_FILE: "no-such-policy.yaml" }, { WARDEN_POLICY_FILE: undefined }, { WARDEN_POLICY_FILE: absolute }])).toEqual([
      expect.stringMatching(/WARDEN_POLICY_FILE: no-such-policy\.yaml does not exist.*examples\/warden\.yaml/),
      expect.stringMatching(/WARDEN_POLICY_FILE: warden\.yaml does not exist/),
      `WARDEN_POLICY_FILE: ${absolute} is an absolute path: give the policy file's path relative to sst.config.ts (SST copies it from there)`,
    ]);
  });

  it("with WARDEN_POLICY_PROJECT, gives every function the policy's project, path and ref, and ships no policy file", async () => {
    const repository = { WARDEN_POLICY_FILE: undefined, WARDEN_POLICY_PROJECT: "security/warden-policy", WARDEN_POLICY_PATH: "policies/prod/warden.yaml", WARDEN_POLICY_REF: "release/2026" };
    // No file at the default warden.yaml either (the test's checkout has none): nothing is looked for.
    const deployed = await deploy("staging", repository);
    expect(deployed.functions().map(([name]) => name).sort()).toEqual(["Chatops", "Enforce", "Watch", "Worker", "Workflows"]);
    for (const [name, f] of deployed.functions()) {
      expect(f.args["copyFiles"], name).toBeUndefined();
      expect(f.env, name).toMatchObject({ WARDEN_POLICY_PROJECT: "security/warden-policy", WARDEN_POLICY_PATH: "policies/prod/warden.yaml", WARDEN_POLICY_REF: "release/2026" });
    }
    const defaults = await deploy("staging", { ...repository, WARDEN_POLICY_PATH: undefined, WARDEN_POLICY_REF: undefined });
    for (const [name, f] of defaults.functions()) {
      expect(f.env["WARDEN_POLICY_PATH"], name).toBe("warden.yaml");
      expect(f.env, name).not.toHaveProperty("WARDEN_POLICY_REF");
      expect(f.env, name).not.toHaveProperty("WARDEN_POLICY_ALLOW_UNPROTECTED_REF");
    }
    // The opt-out from a protected ref reaches every function that reads the policy.
    for (const [name, f] of (await deploy("staging", { ...repository, WARDEN_POLICY_ALLOW_UNPROTECTED_REF: "1" })).functions()) {
      expect(f.env["WARDEN_POLICY_ALLOW_UNPROTECTED_REF"], name).toBe("1");
    }
    // A bundled file's deployment carries none of them.
    for (const [name, f] of (await deploy()).functions()) expect(Object.keys(f.env).filter((k) => k.startsWith("WARDEN_POLICY_")), name).toEqual([]);
  });

  it("refuses a policy named twice, a path or ref without its project, and a repository without GITLAB_URL", async () => {
    expect(await refusals([{ WARDEN_POLICY_PROJECT: "security/warden-policy" }, { WARDEN_POLICY_REF: "main" }, { WARDEN_POLICY_FILE: undefined, WARDEN_POLICY_PROJECT: "1234", WARDEN_POLICY_ALLOW_UNPROTECTED_REF: "yes" }, { WARDEN_POLICY_FILE: undefined, WARDEN_POLICY_PROJECT: "security/warden-policy", GITLAB_URL: undefined }])).toEqual([
      expect.stringContaining("WARDEN_POLICY_FILE and WARDEN_POLICY_PROJECT both name a policy"),
      expect.stringContaining("WARDEN_POLICY_REF is set without WARDEN_POLICY_PROJECT"),
      expect.stringContaining('WARDEN_POLICY_ALLOW_UNPROTECTED_REF must be "1" or "0", not "yes"'),
      expect.stringContaining("WARDEN_POLICY_PROJECT needs GITLAB_URL"),
    ]);
  });

  it("opens chat-ops as a Function URL without IAM auth, allowed to invoke the worker it names, and outputs the URL", async () => {
    const deployed = await deploy();
    const [chatops, worker] = [deployed.fn("Chatops"), deployed.fn("Worker")];
    expect(deployed.one("aws:lambda/functionUrl:FunctionUrl", "ChatopsUrl")).toMatchObject({ authorizationType: "NONE", functionName: chatops.physicalName });
    // No CORS: a browser on any page could otherwise have its preflight answered.
    expect(deployed.one("aws:lambda/functionUrl:FunctionUrl", "ChatopsUrl")).not.toHaveProperty("cors");
    expect(deployed.one("aws:lambda/permission:Permission", "ChatopsPublicFunctionUrlAccess")).toMatchObject({ action: "lambda:InvokeFunctionUrl", principal: "*" });
    expect(chatops.env).toMatchObject({ WARDEN_WORKER_FUNCTION: worker.physicalName });
    // The chat jobs' worker takes chat commands alone (functions/worker.ts).
    expect(worker.env).toMatchObject({ WARDEN_WORKER_TAKES: "chat" });
    expect(chatops.statements).toContainEqual({ actions: ["lambda:InvokeFunction"], resources: [worker.arn] });
    expect(deployed.outputs).toEqual({
      chatopsUrl: `https://ChatopsUrl-a1b2c3.lambda-url.eu-west-1.on.aws/`,
      runHistoryBucket: BUCKET,
      alarmTopic: deployed.topicArn(),
      enforceFunction: deployed.fn("Enforce").physicalName,
      enforceVersion: "1",
    });
    expect(deployed.all("aws:lambda/functionUrl:FunctionUrl").map((u) => u.name)).toEqual(["ChatopsUrl"]);
  });

  it("with WARDEN_EVENTS=on, opens the Events function as a Function URL without IAM auth, allowed to invoke its own worker and claim events, and outputs the URL", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    expect(deployed.components()).toContain("Function Events");
    const [events, worker, chatWorker] = [deployed.fn("Events"), deployed.fn("EventsWorker"), deployed.fn("Worker")];
    expect(events.lambda["handler"]).toBe("functions/events.handler");
    expect(events.lambda["timeout"]).toBe(10);
    expect(deployed.one("aws:lambda/functionUrl:FunctionUrl", "EventsUrl")).toMatchObject({ authorizationType: "NONE", functionName: events.physicalName });
    expect(deployed.one("aws:lambda/functionUrl:FunctionUrl", "EventsUrl")).not.toHaveProperty("cors");
    expect(deployed.one("aws:lambda/permission:Permission", "EventsPublicFunctionUrlAccess")).toMatchObject({ action: "lambda:InvokeFunctionUrl", principal: "*" });
    expect(events.env).toMatchObject({ WARDEN_WORKER_FUNCTION: worker.physicalName, WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3", WARDEN_REPORT_ONLY: "true" });
    expect(events.statements).toContainEqual({ actions: ["lambda:InvokeFunction"], resources: [worker.arn] });
    // A queue each (its own function, its own reserved concurrency): a flood of events never waits in front of a
    // chat command, nor a burst of commands in front of the events. Neither endpoint may start the other's worker.
    expect(JSON.stringify(events.statements)).not.toContain(chatWorker.arn);
    expect(JSON.stringify(deployed.fn("Chatops").statements)).not.toContain(worker.arn);
    expect(worker.lambda["handler"]).toBe("functions/worker.handler");
    expect(worker.env).toMatchObject({ WARDEN_WORKER_TAKES: "subject" });
    // A subject's run is an enforce run by the event trigger: it writes those reports alone, claims worker events as
    // the chat worker does, (a targeted run) reads the last sweep, which the chat worker does not, and takes from the
    // stream's removal budget, which the public Events function may not touch.
    expect(worker.statements.filter((st) => st.actions.some((a) => a.startsWith("s3:")))).toEqual([{ actions: ["s3:PutObject"], resources: [`arn:aws:s3:::${BUCKET}/runs/enforce/event/*`] }]);
    const dynamo = (f: FunctionView) => f.statements.filter((st) => st.actions.some((a) => a.startsWith("dynamodb:")));
    const lastSweep = { actions: ["dynamodb:GetItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["rules:last-sweep"] } } };
    const budget = { actions: ["dynamodb:UpdateItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["budget:stream:*"] } } };
    expect(dynamo(worker)).toEqual([...dynamo(chatWorker), lastSweep, budget]);
    expect(JSON.stringify(events.statements)).not.toContain("budget:");
    // Claims each delivery once (Put, then Get on a conflict); only writes when GitLab last delivered (a review's finding: it read them too).
    expect(dynamo(events)).toEqual([
      { actions: ["dynamodb:PutItem", "dynamodb:GetItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["stream:*", "hook:*"] } } },
      { actions: ["dynamodb:PutItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["heard:stream", "heard:system-hook"] } } },
    ]);
    expect(deployed.outputs["eventsUrl"]).toBe("https://EventsUrl-a1b2c3.lambda-url.eu-west-1.on.aws/");
    // Imported without the deploy settings, the handler module loads and exports its handler.
    vi.stubEnv("WARDEN_SECRET_ARN", undefined);
    expect(typeof ((await import("../functions/events.ts")) as Record<string, unknown>)["handler"]).toBe("function");
    vi.unstubAllEnvs();
  });

  it("keeps the Events function's worker without chat-ops (and no chat-ops Worker); leaves Events out by default; refuses WARDEN_EVENTS=on without GITLAB_URL or a value but on and off", async () => {
    const eventsOnly = await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_CHATOPS: "off" });
    expect(eventsOnly.components()).toEqual(["Bucket RunHistory", "CronV2 EnforceSchedule", "CronV2 WatchSchedule", "CronV2 WorkflowsSchedule", "Dynamo Claims", "Function Events", "Function EventsWorker", "SnsTopic Alarms", "Workflow Enforce"]);
    expect(eventsOnly.outputs).not.toHaveProperty("chatopsUrl");
    expect((await deploy()).components()).not.toContain("Function Events");
    expect(await refusals([{ WARDEN_EVENTS: "on", GITLAB_URL: undefined }, { WARDEN_EVENTS: "yes" }])).toEqual([
      expect.stringContaining("WARDEN_EVENTS=on needs GITLAB_URL"),
      expect.stringContaining('WARDEN_EVENTS must be "on" or "off", not "yes"'),
    ]);
  });

  it("is report-only except on production unless told otherwise, and keeps production's resources on removal", async () => {
    const staging = await deploy("staging");
    expect(staging.functions().every(([, f]) => f.env["WARDEN_REPORT_ONLY"] === "true")).toBe(true);
    expect(staging.app).toMatchObject({ name: "warden", home: "aws", removal: "remove" });
    const production = await deploy("production");
    expect(production.functions().every(([, f]) => f.env["WARDEN_REPORT_ONLY"] === "false")).toBe(true);
    expect(production.app).toMatchObject({ removal: "retain", protect: true });
    const told = await deploy("staging", { WARDEN_REPORT_ONLY: "false" });
    expect(told.functions().every(([, f]) => f.env["WARDEN_REPORT_ONLY"] === "false")).toBe(true);
  });

  // The functions refuse a plain http:// address of another host unless the deployment allows it (issue 28).
  it("passes WARDEN_ALLOW_HTTP=1 to every function when deployed with it, and nothing otherwise", async () => {
    expect((await deploy("staging")).functions().every(([, f]) => !("WARDEN_ALLOW_HTTP" in f.env))).toBe(true);
    const allowed = await deploy("staging", { WARDEN_ALLOW_HTTP: "1", GITLAB_URL: "http://gitlab.internal.example" });
    expect(allowed.functions().every(([, f]) => f.env["WARDEN_ALLOW_HTTP"] === "1")).toBe(true);
  });

  it("refuses to deploy without the secret, or without any service address", async () => {
    expect(await refusals([{ WARDEN_SECRET_ARN: undefined }, { GITLAB_URL: undefined, N8N_URL: "" }])).toEqual([
      expect.stringContaining("WARDEN_SECRET_ARN must be set to deploy Warden (stage staging)"),
      expect.stringContaining("GITLAB_URL, N8N_URL or both must be set to deploy Warden (stage staging)"),
    ]);
  });

  it.each([
    ["GitLab-only", "N8N_URL", "Workflows", ["Bucket RunHistory", "CronV2 EnforceSchedule", "CronV2 WatchSchedule", "Dynamo Claims", "Function Chatops", "Function Worker", "SnsTopic Alarms", "Workflow Enforce"]],
    ["n8n-only", "GITLAB_URL", "Enforce", ["Bucket RunHistory", "CronV2 WorkflowsSchedule", "Dynamo Claims", "Function Chatops", "Function Worker", "SnsTopic Alarms"]],
  ])("deploys %s: without %s, no %s function or schedule, and the address in no environment", async (_, unset, absent, expected) => {
    const deployed = await deploy("staging", { [unset]: undefined });
    expect(deployed.components()).toEqual(expected);
    expect(deployed.functions().map(([name]) => name)).not.toContain(absent);
    expect(deployed.all("aws:scheduler/schedule:Schedule").map((s) => s.name).sort()).toEqual(absent === "Enforce" ? ["WorkflowsScheduleSchedule"] : ["EnforceScheduleSchedule", "WatchScheduleSchedule"]);
    for (const [name, f] of deployed.functions()) expect(f.env, name).not.toHaveProperty(unset);
  });

  it("leaves out chat-ops and its worker with WARDEN_CHATOPS=off, and refuses any value but on and off", async () => {
    const off = await deploy("staging", { WARDEN_CHATOPS: "off" });
    expect(off.components()).toEqual(["Bucket RunHistory", "CronV2 EnforceSchedule", "CronV2 WatchSchedule", "CronV2 WorkflowsSchedule", "Dynamo Claims", "SnsTopic Alarms", "Workflow Enforce"]);
    expect(off.outputs).not.toHaveProperty("chatopsUrl");
    expect(off.all("aws:lambda/functionUrl:FunctionUrl")).toEqual([]);
    expect((await deploy("staging", { WARDEN_CHATOPS: "on" })).components()).toContain("Function Chatops");
    await expect(deploy("staging", { WARDEN_CHATOPS: "false" })).rejects.toThrow('WARDEN_CHATOPS must be "on" or "off", not "false"');
  });

  // Only as Secrets Manager decrypts (kms:ViaService), for the function's own secret (its encryption context, SecretARN):
  // called directly, kms:Decrypt would decrypt anything else under the key, a public function another's secret (a hostile review's finding).
  it("adds kms:Decrypt on the secret's key when WARDEN_SECRET_KMS_KEY_ARN is set, through Secrets Manager for each function's own secret alone; nothing otherwise", async () => {
    const plain = await deploy();
    expect(JSON.stringify(plain.functions().map(([, f]) => f.statements))).not.toContain("kms:");
    const key = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    const keyed = await deploy("staging", { WARDEN_SECRET_KMS_KEY_ARN: key, WARDEN_EVENTS: "on" });
    const own: Record<string, string> = { Chatops: ENDPOINT_SECRET, Events: EVENTS_SECRET };
    for (const [name, f] of keyed.functions()) {
      const secret = own[name] ?? SECRET;
      const decrypts = f.statements.filter((s) => s.actions.includes("kms:Decrypt"));
      expect(decrypts, name).toEqual([{ actions: ["kms:Decrypt"], resources: [key], conditions: { StringEquals: { "kms:ViaService": ["secretsmanager.eu-west-1.amazonaws.com"], "kms:EncryptionContext:SecretARN": [secret] } } }]);
    }
    await expectRefused(["alias/warden", "arn:aws:kms:eu-west-1:123456789012:alias/warden", "1234abcd-12ab-34cd-56ef-1234567890ab"], (alias) => ({ WARDEN_SECRET_KMS_KEY_ARN: alias }), (alias) => `WARDEN_SECRET_KMS_KEY_ARN: "${alias}" is not a KMS key ARN`);
  });

  it("turns off Lambda's retries of the asynchronously invoked functions (Workflows' schedule and worker), not of chat-ops; a Workflow takes none", async () => {
    const deployed = await deploy();
    const configs = deployed.all("aws:lambda/functionEventInvokeConfig:FunctionEventInvokeConfig");
    expect(Object.fromEntries(configs.map((c) => [c.name, c.inputs["maximumRetryAttempts"]]))).toEqual({ WorkerEventInvokeConfig: 0, WorkflowsScheduleHandlerEventInvokeConfig: 0, WatchScheduleHandlerEventInvokeConfig: 0 });
    expect(configs.find((c) => c.name === "WorkerEventInvokeConfig")!.inputs["functionName"]).toBe(deployed.fn("Worker").physicalName);
  });

  it.each(["1", "yes", "TRUE", "no"])("refuses WARDEN_REPORT_ONLY=%s: only true and false are understood", async (value) => {
    await expect(deploy("production", { WARDEN_REPORT_ONLY: value })).rejects.toThrow(`WARDEN_REPORT_ONLY must be "true" or "false", not "${value}"`);
  });

  it("keeps chat-ops' claims, Enforce's lease and Workflows' record in one DynamoDB table with a TTL, each function to its own keys", async () => {
    const deployed = await deploy();
    expect(deployed.all("aws:dynamodb/table:Table")).toHaveLength(1);
    expect(deployed.one("aws:dynamodb/table:Table", "ClaimsTable")).toMatchObject({ attributes: [{ name: "id", type: "S" }], hashKey: "id", billingMode: "PAY_PER_REQUEST", ttl: { attributeName: "expiresAt", enabled: true } });
    const claimOnce = ["dynamodb:PutItem", "dynamodb:GetItem"];
    const leases = ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"];
    // What the last full run found: Enforce writes it (and reads it before its own), the targeted runs read it (a chat command's is not one).
    const sweep = (...actions: string[]): [string[], string[]] => [actions, ["rules:last-sweep"]];
    const access: Record<string, [string[], string[]][]> = {
      Chatops: [[claimOnce, ["slack:*"]]],
      Worker: [[claimOnce, ["worker:*"]]],
      // The lease is released when the run ends; the sweep's record of how far it judged the event-driven paths.
      Enforce: [[leases, ["lease:enforce"]], [claimOnce, ["sweep:judged"]], sweep("dynamodb:PutItem", "dynamodb:GetItem")],
      // Its lease, its cursor (read, then a conditional write; never deleted: a review's finding), its summaries told once, and a policy's removal budget, shared with the EventsWorker.
      Watch: [[leases, ["watch:lease"]], [claimOnce, ["watch:cursor", "watch:summary:*"]], sweep("dynamodb:GetItem"), [["dynamodb:UpdateItem"], [`budget:stream:${"?".repeat(64)}`]]],
      Workflows: [[["dynamodb:GetItem", "dynamodb:PutItem"], ["workflows:refused"]]], // read before each run, overwritten after it
    };
    for (const [name, f] of deployed.functions()) {
      const allowed = access[name];
      const dynamo = f.statements.filter((s) => s.actions.some((a) => a.startsWith("dynamodb:")));
      if (allowed) {
        expect(f.env, name).toMatchObject({ WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3" });
        expect(dynamo, name).toEqual(allowed.map(([actions, keys]) => ({ actions, resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": keys } } })));
      } else {
        expect(f.env, name).not.toHaveProperty("WARDEN_CLAIMS_TABLE");
        expect(dynamo, name).toEqual([]);
      }
    }
  });

  it("creates the claims table without chat-ops: for Enforce's lease, and for Workflows' record without GITLAB_URL (its schedule off too)", async () => {
    const noChatops = await deploy("staging", { WARDEN_CHATOPS: "off", N8N_URL: undefined });
    expect(noChatops.has("aws:dynamodb/table:Table", "ClaimsTable")).toBe(true);
    expect(noChatops.fn("Enforce").env).toMatchObject({ WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3" });
    expect(noChatops.fn("Enforce").statements).toContainEqual({ actions: ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["lease:enforce"] } } });
    // Workflows reads and writes its record on every run, a console run's too: the table is there with its schedule off.
    const n8nOnly = await deploy("staging", { WARDEN_CHATOPS: "off", GITLAB_URL: undefined, WARDEN_WORKFLOWS_SCHEDULE: "off" });
    expect(n8nOnly.functions().map(([name]) => name)).toEqual(["Workflows"]); // no Enforce, no chat-ops
    expect(n8nOnly.all("aws:dynamodb/table:Table").map((t) => t.name)).toEqual(["ClaimsTable"]);
    expect(n8nOnly.fn("Workflows").env).toMatchObject({ WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3" });
  });

  it("keeps applying runs' reports in a bucket that expires them after 90 days (WARDEN_RUN_HISTORY_DAYS), written by the jobs alone", async () => {
    const deployed = await deploy();
    expect(deployed.one("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "RunHistoryLifecycle")).toEqual({
      bucket: BUCKET,
      rules: [{ id: "expire-runs", status: "Enabled", filter: { prefix: "runs/" }, expiration: { days: 90 } }],
    });
    const under = (...jobs: string[]) => jobs.map((job) => `arn:aws:s3:::${BUCKET}/runs/${job}/*`);
    // Each job writes its own runs only, and a function of one trigger that trigger's alone; only Enforce, whose
    // restore reads them, reads or lists, and only enforce runs.
    const grants: Record<string, Statement[]> = {
      Enforce: [
        { actions: ["s3:PutObject"], resources: under("enforce", "restore") },
        { actions: ["s3:GetObject"], resources: under("enforce") },
        { actions: ["s3:ListBucket"], resources: [`arn:aws:s3:::${BUCKET}`], conditions: { StringLike: { "s3:prefix": ["runs/enforce/*"] } } },
      ],
      Watch: [{ actions: ["s3:PutObject"], resources: under("enforce/watch") }],
      Workflows: [{ actions: ["s3:PutObject"], resources: under("workflows") }],
      Worker: [{ actions: ["s3:PutObject"], resources: under("enforce/chat", "pipeline/chat", "workflows/chat") }],
    };
    for (const [name, f] of deployed.functions()) {
      const s3 = f.statements.filter((s) => s.actions.some((a) => a.startsWith("s3:")));
      if (name === "Chatops") {
        expect(f.env).not.toHaveProperty("WARDEN_RUN_HISTORY_BUCKET");
        expect(s3).toEqual([]);
        continue;
      }
      expect(f.env, name).toMatchObject({ WARDEN_RUN_HISTORY_BUCKET: BUCKET });
      expect(s3, name).toEqual(grants[name]);
    }
    const month = await deploy("staging", { WARDEN_RUN_HISTORY_DAYS: "30" });
    expect(month.one("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "RunHistoryLifecycle")["rules"][0].expiration).toEqual({ days: 30 });
    const oneDay = await deploy("staging", { WARDEN_RUN_HISTORY_DAYS: "1" });
    expect(oneDay.one("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "RunHistoryLifecycle")["rules"][0].expiration).toEqual({ days: 1 });
    await expectRefused(["0", "-1", "1.5", "ninety"], (bad) => ({ WARDEN_RUN_HISTORY_DAYS: bad }), (bad) => `WARDEN_RUN_HISTORY_DAYS must be a whole number of days (1 or more), not "${bad}"`);
  });

  it("names the stage in every function's environment, for Slack summaries and metrics", async () => {
    const deployed = await deploy("production");
    for (const [name, f] of deployed.functions()) expect(f.env, name).toMatchObject({ WARDEN_STAGE: "production" });
  });
});
