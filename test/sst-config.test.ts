/**
 * sst.config.ts deployed as SST 4.17 deploys it, short of AWS: app() evaluated from a bundle built the
 * way SST builds it (where a top-level import is refused), then run() bundled with the platform's
 * globals and run under Pulumi's resource mocks, against the real @pulumi/aws resource classes and a
 * stand-in of SST's components that keeps SST's rules (test/support/sst). Assertions read the resources Pulumi
 * was asked to create: Lambda functions, roles and their policies, schedules, the table, the bucket's
 * lifecycle, alarms. SST itself cannot run here: its CLI downloads Pulumi.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import { recordCursorAge, recordRun } from "../functions/lib/runs/metrics.ts";
import { NODE_OPTIONS } from "../lib/config/node-options.ts";
import { buildRun, evaluateApp, evaluateRun, removeBuilds, TOP_LEVEL_IMPORT, type Deployed, type SstApp } from "./support/sst/build.ts";
import { emfRecords } from "./support/emf.ts";

// Each test deploys the config one or more times (a bundle, then Pulumi's mocks over every resource):
// seconds each on a quiet machine, many more on a loaded CI runner, so this file's tests get more time.
vi.setConfig({ testTimeout: 90_000 });

const SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-AbCdEf";
const ENDPOINT_SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-endpoints-GhIjKl";
const DEPLOY_ENV = { WARDEN_SECRET_ARN: SECRET, WARDEN_ENDPOINT_SECRET_ARN: ENDPOINT_SECRET, GITLAB_URL: "https://gitlab.example.com", N8N_URL: "https://n8n.example.com", WARDEN_POLICY_FILE: "examples/warden.yaml" };
/** Every other documented deploy variable, unset unless a test sets it. */
const UNSET = Object.fromEntries(
  ["WARDEN_ENFORCE_SCHEDULE", "WARDEN_WORKFLOWS_SCHEDULE", "WARDEN_REPORT_ONLY", "WARDEN_CHATOPS", "WARDEN_SECRET_KMS_KEY_ARN", "WARDEN_ALARM_EMAIL", "WARDEN_RUN_HISTORY_DAYS", "WARDEN_ENFORCE_EXECUTION_HOURS", "WARDEN_EXECUTION_RETENTION_DAYS", "WARDEN_POLICY_PROJECT", "WARDEN_POLICY_PATH", "WARDEN_POLICY_REF", "WARDEN_POLICY_ALLOW_UNPROTECTED_REF", "WARDEN_EVENTS", "WARDEN_ALLOW_HTTP", "WARDEN_ENDPOINT_CONCURRENCY"].map((n) => [n, undefined]),
);

type Env = Record<string, string | undefined>;
type Inputs = Record<string, any>;
interface Statement { actions: string[]; resources: string[]; conditions?: Record<string, Record<string, string[]>> }

/** What app() gives each stage (the first test holds app() to it): the run() build's $app, so that each of SST's two builds fails its own tests. */
const appOf = (stage: string): SstApp => ({ name: "warden", home: "aws", removal: stage === "production" ? "retain" : "remove", protect: stage === "production" });

const builds = new Map<string, Promise<{ app: SstApp; bundle: string }>>();
/** The run() bundle, built once per stage: the deploy settings are read at run time, from the environment. */
function built(stage: string) {
  if (!builds.has(stage)) builds.set(stage, buildRun(appOf(stage), stage).then((bundle) => ({ app: appOf(stage), bundle })));
  return builds.get(stage)!;
}

/** The resources of one deploy, read the way an operator reads a plan. */
class Deploy {
  readonly app: SstApp;
  private readonly deployed: Deployed;
  constructor(app: SstApp, deployed: Deployed) {
    this.app = app;
    this.deployed = deployed;
  }
  get outputs() { return this.deployed.outputs; }
  get warnings() { return this.deployed.warnings; }
  all(type: string) { return this.deployed.resources.filter((r) => r.type === type); }
  has(type: string, name: string) { return this.all(type).some((r) => r.name === name); }
  one(type: string, name: string): Inputs {
    const found = this.all(type).find((r) => r.name === name);
    if (!found) throw new Error(`no ${type} ${name} among ${this.all(type).map((r) => r.name).join(", ")}`);
    return found.inputs;
  }
  /** The top-level SST components, as "Kind Name", sorted: Pulumi registers them concurrently. */
  components(): string[] {
    const children = new Set(this.all("sst:aws:Function").map((r) => r.name).filter((n) => n.endsWith("Handler")));
    return this.deployed.resources.filter((r) => r.type.startsWith("sst:aws:") && !children.has(r.name)).map((r) => `${r.type.slice(8)} ${r.name}`).sort();
  }
  /** Every Lambda function, by the name it has in the config (a Workflow's or a cron's "…Handler" is its parent's). */
  functions(): [string, FunctionView][] {
    return this.all("sst:aws:Function").map((c) => [c.name.replace(/(Schedule)?Handler$/, ""), new FunctionView(this, c.name)]);
  }
  fn(name: string): FunctionView {
    const found = this.functions().find(([n]) => n === name);
    if (!found) throw new Error(`no function ${name}`);
    return found[1];
  }
  alarms() { return this.all("aws:cloudwatch/metricAlarm:MetricAlarm"); }
  schedule(job: "Enforce" | "Workflows" | "Watch"): Inputs { return this.one("aws:scheduler/schedule:Schedule", `${job}ScheduleSchedule`); }
  topicArn() { return arnOf("aws:sns/topic:Topic", "AlarmsTopic"); }
}

/** One function: its SST arguments, the Lambda resource, and its role's statements. */
class FunctionView {
  private readonly deploy: Deploy;
  readonly component: string;
  constructor(deploy: Deploy, component: string) {
    this.deploy = deploy;
    this.component = component;
  }
  get args(): Inputs { return this.deploy.one("sst:aws:Function", this.component); }
  get lambda(): Inputs { return this.deploy.one("aws:lambda/function:Function", `${this.component}Function`); }
  get env(): Record<string, string> { return this.lambda["environment"].variables; }
  get statements(): Statement[] {
    const inline = this.deploy.one("aws:iam/role:Role", `${this.component}Role`)["inlinePolicies"] as { policy: string }[];
    return inline.flatMap((p) =>
      (JSON.parse(p.policy).Statement as { Action: string[]; Resource: string[]; Condition?: Statement["conditions"] }[]).map((s) => ({ actions: s.Action, resources: s.Resource, ...(s.Condition ? { conditions: s.Condition } : {}) })),
    );
  }
  get arn() { return arnOf("aws:lambda/function:Function", `${this.component}Function`); }
  get physicalName() { return `${this.component}Function-a1b2c3`; }
}

/** The ARN evaluate.ts gives a resource (test/support/sst/evaluate.ts `state`). */
function arnOf(type: string, name: string): string {
  const physical = `${name}-a1b2c3`;
  if (type === "aws:lambda/function:Function") return `arn:aws:lambda:eu-west-1:123456789012:function:${physical}`;
  if (type === "aws:dynamodb/table:Table") return `arn:aws:dynamodb:eu-west-1:123456789012:table/${physical}`;
  if (type === "aws:s3/bucket:Bucket") return `arn:aws:s3:::${physical}`;
  return `arn:aws:${type.split(/[:/]/)[1]}:eu-west-1:123456789012:${physical}`;
}

async function deploy(stage = "staging", env: Env = {}): Promise<Deploy> {
  const { app, bundle } = await built(stage);
  return new Deploy(app, await evaluateRun(bundle, stage, { ...UNSET, ...DEPLOY_ENV, ...env }));
}

const BUCKET = "RunHistoryBucket-a1b2c3";
const CLAIMS = arnOf("aws:dynamodb/table:Table", "ClaimsTable");

describe("sst.config.ts as SST 4.17 builds it", () => {
  it("has no static import at its top: SST evaluates app() from a bundle that refuses one", async () => {
    for (const stage of ["staging", "dev", "production"]) expect(await evaluateApp(stage)).toEqual(appOf(stage));
  });

  it("the app() build refuses a config with a top-level import, as SST does (this suite's check can fail)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "warden-sst-"));
    writeFileSync(join(dir, "sst.config.ts"), `import { x } from "./x.ts";\nexport default $config({ app() { return { name: x, home: "aws" }; }, async run() {} });\n`);
    await expect(evaluateApp("staging", join(dir, "sst.config.ts"))).rejects.toThrow(TOP_LEVEL_IMPORT);
  });

  it("gives every top-level component a name of its own, compared case-insensitively across kinds", async () => {
    const deployed = await deploy();
    expect(deployed.components()).toEqual(["Bucket RunHistory", "CronV2 EnforceSchedule", "CronV2 WatchSchedule", "CronV2 WorkflowsSchedule", "Dynamo Claims", "Function Chatops", "Function Worker", "SnsTopic Alarms", "Workflow Enforce"]);
    const lower = deployed.components().map((c) => c.split(" ")[1]!.toLowerCase());
    expect(new Set(lower).size).toBe(lower.length);
  });

  it("the stand-in refuses what SST refuses: a name used twice across kinds, an argument SST does not have", async () => {
    const cases: [string, string][] = [
      [`new sst.aws.Workflow("Enforce", { handler: "functions/enforce.handler" }); new sst.aws.CronV2("enforce", { schedule: "rate(1 day)", function: "arn:x" });`, "Component name enforce is not unique."],
      [`new sst.aws.Workflow("Enforce", { handler: "functions/enforce.handler", retries: 0 } as never);`, `sst.aws.Workflow "Enforce" has no argument "retries" in SST 4.17`],
      [`new sst.aws.Function("App", { handler: "functions/enforce.handler" });`, `Component name "App" is reserved.`],
    ];
    // Outside the project's .sst, whose files get no globals.
    const dir = mkdtempSync(join(tmpdir(), "warden-sst-"));
    for (const [i, [program, error]] of cases.entries()) {
      const config = join(dir, `${i}`, "sst.config.ts");
      mkdirSync(join(dir, `${i}`), { recursive: true });
      writeFileSync(config, `export default $config({ app() { return { name: "warden", home: "aws" }; }, async run() { ${program} } });\n`);
      const bundle = await buildRun({ name: "warden", home: "aws" }, "staging", config);
      await expect(evaluateRun(bundle, "staging", {}), program).rejects.toThrow(error);
    }
  });

  it("uses no deprecated @pulumi/aws resource: a deploy prints no deprecation warning", async () => {
    const deployed = await deploy();
    expect(deployed.warnings).not.toMatch(/deprecated/i);
    expect(deployed.all("aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2")).toEqual([]);
  });
});

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
    for (const bad of ["0", "-1", "1.5", "8785", "24h", "day"]) {
      await expect(deploy("staging", { WARDEN_ENFORCE_EXECUTION_HOURS: bad }), bad).rejects.toThrow(`WARDEN_ENFORCE_EXECUTION_HOURS must be a whole number of hours from 1 to 8784, not "${bad}"`);
    }
    for (const bad of ["0", "91", "14 days", "2.5"]) {
      await expect(deploy("staging", { WARDEN_EXECUTION_RETENTION_DAYS: bad }), bad).rejects.toThrow(`WARDEN_EXECUTION_RETENTION_DAYS must be a whole number of days from 1 to 90, not "${bad}"`);
    }
  });

  it("takes other schedules from the deploy environment, rate or six-field cron, and refuses a malformed one", async () => {
    const deployed = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "cron(0 3 ? * MON-FRI *)", WARDEN_WORKFLOWS_SCHEDULE: "rate(15 minutes)" });
    expect(deployed.schedule("Enforce")["scheduleExpression"]).toBe("cron(0 3 ? * MON-FRI *)");
    expect(deployed.schedule("Workflows")["scheduleExpression"]).toBe("rate(15 minutes)");
    for (const bad of ["cron(0 3 * * *)", "rate(1 days)", "rate(2 hour)", "rate(0 minutes)", "daily"]) {
      await expect(deploy("staging", { WARDEN_ENFORCE_SCHEDULE: bad }), bad).rejects.toThrow(`WARDEN_ENFORCE_SCHEDULE: "${bad}" is not a schedule expression`);
    }
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

  it("lets the jobs read the jobs' secret and the public endpoints the endpoints' alone, and ships the policy file next to the handlers", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const secretGrants = (f: FunctionView) => f.statements.filter((s) => s.actions.some((a) => a.startsWith("secretsmanager:")));
    for (const [name, f] of deployed.functions()) {
      const [variable, arn] = ["Chatops", "Events"].includes(name) ? ["WARDEN_ENDPOINT_SECRET_ARN", ENDPOINT_SECRET] : ["WARDEN_SECRET_ARN", SECRET];
      expect(secretGrants(f), name).toEqual([{ actions: ["secretsmanager:GetSecretValue"], resources: [arn] }]);
      expect(f.env[variable], name).toBe(arn);
      expect(f.env, name).not.toHaveProperty(variable === "WARDEN_SECRET_ARN" ? "WARDEN_ENDPOINT_SECRET_ARN" : "WARDEN_SECRET_ARN");
      expect(f.args["copyFiles"], name).toEqual([{ from: DEPLOY_ENV.WARDEN_POLICY_FILE, to: "warden.yaml" }]);
      expect(f.env, name).toMatchObject({ GITLAB_URL: DEPLOY_ENV.GITLAB_URL, N8N_URL: DEPLOY_ENV.N8N_URL, NODE_OPTIONS });
      expect(JSON.stringify(f.env), name).not.toMatch(/gitlabToken|n8nApiKey|slackSigningSecret/);
    }
  });

  it("refuses a policy file that is not there, naming WARDEN_POLICY_FILE and the example to start from", async () => {
    await expect(deploy("staging", { WARDEN_POLICY_FILE: "no-such-policy.yaml" })).rejects.toThrow(/WARDEN_POLICY_FILE: no-such-policy\.yaml does not exist.*examples\/warden\.yaml/);
    await expect(deploy("staging", { WARDEN_POLICY_FILE: undefined })).rejects.toThrow(/WARDEN_POLICY_FILE: warden\.yaml does not exist/);
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
    await expect(deploy("staging", { WARDEN_POLICY_PROJECT: "security/warden-policy" })).rejects.toThrow("WARDEN_POLICY_FILE and WARDEN_POLICY_PROJECT both name a policy");
    await expect(deploy("staging", { WARDEN_POLICY_REF: "main" })).rejects.toThrow("WARDEN_POLICY_REF is set without WARDEN_POLICY_PROJECT");
    await expect(deploy("staging", { WARDEN_POLICY_FILE: undefined, WARDEN_POLICY_PROJECT: "1234", WARDEN_POLICY_ALLOW_UNPROTECTED_REF: "yes" })).rejects.toThrow('WARDEN_POLICY_ALLOW_UNPROTECTED_REF must be "1" or "0", not "yes"');
    await expect(deploy("staging", { WARDEN_POLICY_FILE: undefined, WARDEN_POLICY_PROJECT: "security/warden-policy", GITLAB_URL: undefined })).rejects.toThrow("WARDEN_POLICY_PROJECT needs GITLAB_URL");
  });

  it("opens chat-ops as a Function URL without IAM auth, allowed to invoke the worker it names, and outputs the URL", async () => {
    const deployed = await deploy();
    const [chatops, worker] = [deployed.fn("Chatops"), deployed.fn("Worker")];
    expect(deployed.one("aws:lambda/functionUrl:FunctionUrl", "ChatopsUrl")).toMatchObject({ authorizationType: "NONE", functionName: chatops.physicalName });
    expect(deployed.one("aws:lambda/permission:Permission", "ChatopsPublicFunctionUrlAccess")).toMatchObject({ action: "lambda:InvokeFunctionUrl", principal: "*" });
    expect(chatops.env).toMatchObject({ WARDEN_WORKER_FUNCTION: worker.physicalName });
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

  it("with WARDEN_EVENTS=on, opens the Events function as a Function URL without IAM auth, allowed to invoke the worker and claim events, and outputs the URL", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    expect(deployed.components()).toContain("Function Events");
    const [events, worker] = [deployed.fn("Events"), deployed.fn("Worker")];
    expect(events.lambda["handler"]).toBe("functions/events.handler");
    expect(events.lambda["timeout"]).toBe(10);
    expect(deployed.one("aws:lambda/functionUrl:FunctionUrl", "EventsUrl")).toMatchObject({ authorizationType: "NONE", functionName: events.physicalName });
    expect(deployed.one("aws:lambda/permission:Permission", "EventsPublicFunctionUrlAccess")).toMatchObject({ action: "lambda:InvokeFunctionUrl", principal: "*" });
    expect(events.env).toMatchObject({ WARDEN_WORKER_FUNCTION: worker.physicalName, WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3", WARDEN_REPORT_ONLY: "true" });
    expect(events.statements).toContainEqual({ actions: ["lambda:InvokeFunction"], resources: [worker.arn] });
    expect(events.statements).toContainEqual({ actions: ["dynamodb:PutItem", "dynamodb:GetItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["stream:*", "hook:*", "heard:stream", "heard:system-hook"] } } });
    expect(deployed.outputs["eventsUrl"]).toBe("https://EventsUrl-a1b2c3.lambda-url.eu-west-1.on.aws/");
    // Imported without the deploy settings, the handler module loads and exports its handler.
    vi.stubEnv("WARDEN_SECRET_ARN", undefined);
    expect(typeof ((await import("../functions/events.ts")) as Record<string, unknown>)["handler"]).toBe("function");
    vi.unstubAllEnvs();
  });

  it("keeps the worker for the Events function without chat-ops; leaves Events out by default; refuses WARDEN_EVENTS=on without GITLAB_URL or a value but on and off", async () => {
    const eventsOnly = await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_CHATOPS: "off" });
    expect(eventsOnly.components()).toEqual(["Bucket RunHistory", "CronV2 EnforceSchedule", "CronV2 WatchSchedule", "CronV2 WorkflowsSchedule", "Dynamo Claims", "Function Events", "Function Worker", "SnsTopic Alarms", "Workflow Enforce"]);
    expect(eventsOnly.outputs).not.toHaveProperty("chatopsUrl");
    expect((await deploy()).components()).not.toContain("Function Events");
    await expect(deploy("staging", { WARDEN_EVENTS: "on", GITLAB_URL: undefined })).rejects.toThrow("WARDEN_EVENTS=on needs GITLAB_URL");
    await expect(deploy("staging", { WARDEN_EVENTS: "yes" })).rejects.toThrow('WARDEN_EVENTS must be "on" or "off", not "yes"');
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
    await expect(deploy("staging", { WARDEN_SECRET_ARN: undefined })).rejects.toThrow("WARDEN_SECRET_ARN must be set to deploy Warden (stage staging)");
    await expect(deploy("staging", { GITLAB_URL: undefined, N8N_URL: "" })).rejects.toThrow("GITLAB_URL, N8N_URL or both must be set to deploy Warden (stage staging)");
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

  it("adds kms:Decrypt on the secret's key to every function when WARDEN_SECRET_KMS_KEY_ARN is set, and nothing otherwise", async () => {
    const plain = await deploy();
    expect(JSON.stringify(plain.functions().map(([, f]) => f.statements))).not.toContain("kms:");
    const key = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    const keyed = await deploy("staging", { WARDEN_SECRET_KMS_KEY_ARN: key });
    for (const [name, f] of keyed.functions()) expect(f.statements, name).toContainEqual({ actions: ["kms:Decrypt"], resources: [key] });
    for (const alias of ["alias/warden", "arn:aws:kms:eu-west-1:123456789012:alias/warden", "1234abcd-12ab-34cd-56ef-1234567890ab"]) {
      await expect(deploy("staging", { WARDEN_SECRET_KMS_KEY_ARN: alias }), alias).rejects.toThrow(`WARDEN_SECRET_KMS_KEY_ARN: "${alias}" is not a KMS key ARN`);
    }
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

  it("keeps chat-ops' claims and Enforce's lease in one DynamoDB table with a TTL, which only chat-ops, the worker and Enforce may write", async () => {
    const deployed = await deploy();
    expect(deployed.all("aws:dynamodb/table:Table")).toHaveLength(1);
    expect(deployed.one("aws:dynamodb/table:Table", "ClaimsTable")).toMatchObject({ attributes: [{ name: "id", type: "S" }], hashKey: "id", billingMode: "PAY_PER_REQUEST", ttl: { attributeName: "expiresAt", enabled: true } });
    const claimOnce = ["dynamodb:PutItem", "dynamodb:GetItem"];
    const leases = ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"];
    // What the last full run found matching nothing: Enforce writes it, the targeted runs read it.
    const sweep = (action: string): [string[], string[]] => [[action], ["rules:last-sweep"]];
    const access: Record<string, [string[], string[]][]> = {
      Chatops: [[claimOnce, ["slack:*"]]],
      Worker: [[claimOnce, ["worker:*"]], sweep("dynamodb:GetItem")],
      // The lease is released when the run ends; the sweep's record of how far it judged the event-driven paths.
      Enforce: [[leases, ["lease:enforce"]], [claimOnce, ["sweep:judged"]], sweep("dynamodb:PutItem")],
      // Its cursor (a conditional write) and its lease.
      Watch: [[leases, ["watch:lease", "watch:cursor"]], sweep("dynamodb:GetItem")],
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

  it("creates the claims table for Enforce's lease without chat-ops, and none with neither chat-ops nor GITLAB_URL", async () => {
    const noChatops = await deploy("staging", { WARDEN_CHATOPS: "off" });
    expect(noChatops.has("aws:dynamodb/table:Table", "ClaimsTable")).toBe(true);
    expect(noChatops.fn("Enforce").env).toMatchObject({ WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3" });
    expect(noChatops.fn("Enforce").statements).toContainEqual({ actions: ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["lease:enforce"] } } });
    const neither = await deploy("staging", { WARDEN_CHATOPS: "off", GITLAB_URL: undefined });
    expect(neither.all("aws:dynamodb/table:Table")).toEqual([]);
    expect(neither.all("sst:aws:Workflow")).toEqual([]);
    expect(neither.outputs).not.toHaveProperty("enforceFunction");
  });

  it("keeps applying runs' reports in a bucket that expires them after 90 days (WARDEN_RUN_HISTORY_DAYS), written by the jobs alone", async () => {
    const deployed = await deploy();
    expect(deployed.one("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "RunHistoryLifecycle")).toEqual({
      bucket: BUCKET,
      rules: [{ id: "expire-runs", status: "Enabled", filter: { prefix: "runs/" }, expiration: { days: 90 } }],
    });
    const under = (...jobs: string[]) => jobs.map((job) => `arn:aws:s3:::${BUCKET}/runs/${job}/*`);
    // Each job writes its own runs only; only Enforce, whose restore reads them, reads or lists, and only enforce runs.
    const grants: Record<string, Statement[]> = {
      Enforce: [
        { actions: ["s3:PutObject"], resources: under("enforce", "restore") },
        { actions: ["s3:GetObject"], resources: under("enforce") },
        { actions: ["s3:ListBucket"], resources: [`arn:aws:s3:::${BUCKET}`], conditions: { StringLike: { "s3:prefix": ["runs/enforce/*"] } } },
      ],
      Watch: [{ actions: ["s3:PutObject"], resources: under("enforce") }],
      Workflows: [{ actions: ["s3:PutObject"], resources: under("workflows") }],
      Worker: [{ actions: ["s3:PutObject"], resources: under("enforce", "workflows", "pipeline") }],
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
    for (const bad of ["0", "-1", "1.5", "ninety"]) {
      await expect(deploy("staging", { WARDEN_RUN_HISTORY_DAYS: bad }), bad).rejects.toThrow(`WARDEN_RUN_HISTORY_DAYS must be a whole number of days (1 or more), not "${bad}"`);
    }
  });

  it("names the stage in every function's environment, for Slack summaries and metrics", async () => {
    const deployed = await deploy("production");
    for (const [name, f] of deployed.functions()) expect(f.env, name).toMatchObject({ WARDEN_STAGE: "production" });
  });
});

/** Whether an IAM pattern (`*` any run, `?` one character) matches `value`, as StringLike and a Resource do. */
const iamMatches = (pattern: string, value: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`).test(value);
/** Whether any statement of `f` allows `action` on `resource`, for a request whose condition keys are `context`. */
function allows(f: FunctionView, action: string, resource: string, context: Record<string, string[]> = {}): boolean {
  return f.statements.some(
    (s) =>
      s.actions.includes(action) &&
      s.resources.some((r) => iamMatches(r, resource)) &&
      Object.entries(s.conditions ?? {}).every(([test, vars]) =>
        Object.entries(vars).every(([variable, patterns]) => {
          const values = context[variable];
          if (values === undefined) return false;
          if (test === "ForAllValues:StringLike") return values.every((v) => patterns.some((p) => iamMatches(p, v)));
          if (test === "StringLike") return values.some((v) => patterns.some((p) => iamMatches(p, v)));
          throw new Error(`no evaluation of ${test} here`);
        }),
      ),
  );
}

describe("sst.config.ts keeps each function to its own (issue 28: the public endpoints reach too far)", () => {
  it("gives the public Chatops and Events functions no read of the jobs' secret, which holds the GitLab token", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    for (const name of ["Chatops", "Events"]) {
      const f = deployed.fn(name);
      expect(allows(f, "secretsmanager:GetSecretValue", SECRET), name).toBe(false);
      expect(allows(f, "secretsmanager:GetSecretValue", ENDPOINT_SECRET), name).toBe(true);
      expect(f.env, name).not.toHaveProperty("WARDEN_SECRET_ARN");
    }
    for (const name of ["Worker", "Enforce", "Workflows", "Watch"]) expect(allows(deployed.fn(name), "secretsmanager:GetSecretValue", ENDPOINT_SECRET), name).toBe(false);
  });

  it("lets no job write another job's runs: a Workflows run cannot plant the enforce report restore trusts as latest", async () => {
    const deployed = await deploy();
    const enforceRun = `arn:aws:s3:::${BUCKET}/runs/enforce/20260101T000000.000Z-planted.json`;
    expect(allows(deployed.fn("Workflows"), "s3:PutObject", enforceRun)).toBe(false);
    expect(allows(deployed.fn("Workflows"), "s3:PutObject", `arn:aws:s3:::${BUCKET}/runs/workflows/20260101T000000.000Z-x.json`)).toBe(true);
    // Under the job's prefix, however run-history.ts lays keys out beneath it.
    expect(allows(deployed.fn("Enforce"), "s3:PutObject", `arn:aws:s3:::${BUCKET}/runs/enforce/schedule/20260101T000000.000Z-x.json`)).toBe(true);
    expect(allows(deployed.fn("Enforce"), "s3:GetObject", enforceRun)).toBe(true);
    expect(allows(deployed.fn("Enforce"), "s3:GetObject", `arn:aws:s3:::${BUCKET}/runs/workflows/x.json`)).toBe(false);
    expect(allows(deployed.fn("Enforce"), "s3:ListBucket", `arn:aws:s3:::${BUCKET}`, { "s3:prefix": ["runs/enforce/"] })).toBe(true);
    expect(allows(deployed.fn("Enforce"), "s3:ListBucket", `arn:aws:s3:::${BUCKET}`, { "s3:prefix": ["runs/"] })).toBe(false);
    for (const name of ["Workflows", "Watch", "Worker"]) {
      expect(allows(deployed.fn(name), "s3:GetObject", enforceRun), name).toBe(false);
      expect(allows(deployed.fn(name), "s3:ListBucket", `arn:aws:s3:::${BUCKET}`, { "s3:prefix": ["runs/enforce/"] }), name).toBe(false);
    }
  });

  it("keeps every DynamoDB grant to the function's own keys: no public function can take the Enforce lease or move the Watch cursor", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    for (const [name, f] of deployed.functions()) {
      for (const statement of f.statements.filter((s) => s.actions.some((a) => a.startsWith("dynamodb:")))) {
        expect(statement.conditions?.["ForAllValues:StringLike"]?.["dynamodb:LeadingKeys"], name).toEqual(expect.arrayContaining([expect.any(String)]));
      }
    }
    const put = (name: string, key: string) => allows(deployed.fn(name), "dynamodb:PutItem", CLAIMS, { "dynamodb:LeadingKeys": [key] });
    for (const key of ["lease:enforce", "watch:cursor", "watch:lease", "worker:req-1"]) {
      expect(put("Chatops", key), `Chatops ${key}`).toBe(false);
      expect(put("Events", key), `Events ${key}`).toBe(false);
    }
    expect(put("Chatops", "slack:1700000000:v0=abc")).toBe(true);
    expect(put("Events", "stream:42")).toBe(true);
    expect(put("Events", "hook:42")).toBe(true);
    expect(put("Events", "slack:1700000000:v0=abc")).toBe(false);
    expect(put("Worker", "lease:enforce")).toBe(false);
    expect(put("Watch", "lease:enforce")).toBe(false);
    expect(put("Enforce", "watch:cursor")).toBe(false);
    expect(put("Enforce", "lease:enforce")).toBe(true);
    expect(put("Watch", "watch:cursor")).toBe(true);
  });

  it("lets the Events function record what it heard and the sweep read it, and no other function write either (issue 29.2)", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const can = (name: string, action: string, key: string) => allows(deployed.fn(name), action, CLAIMS, { "dynamodb:LeadingKeys": [key] });
    for (const key of ["heard:stream", "heard:system-hook"]) {
      expect(can("Events", "dynamodb:PutItem", key), key).toBe(true);
      expect(can("Enforce", "dynamodb:GetItem", key), key).toBe(true);
      // A job cannot fake a delivery (and hide the silence), nor chat-ops or the watch.
      for (const name of ["Enforce", "Chatops", "Worker", "Watch"]) expect(can(name, "dynamodb:PutItem", key), `${name} ${key}`).toBe(false);
    }
    expect(can("Enforce", "dynamodb:PutItem", "sweep:judged")).toBe(true);
    expect(can("Enforce", "dynamodb:DeleteItem", "sweep:judged")).toBe(false);
    // No public function can move the sweep's window (and so hide a miss).
    for (const name of ["Events", "Chatops", "Worker", "Watch"]) expect(can(name, "dynamodb:PutItem", "sweep:judged"), name).toBe(false);
    expect(deployed.fn("Enforce").env).toMatchObject({ WARDEN_EVENTS: "on", WARDEN_WATCH: "on", WARDEN_EVENTS_SILENCE_HOURS: "24" });
    // Without events, Enforce reads no delivery record.
    const off = await deploy("staging", { WARDEN_WATCH_SCHEDULE: "off" });
    expect(allows(off.fn("Enforce"), "dynamodb:GetItem", CLAIMS, { "dynamodb:LeadingKeys": ["heard:stream"] })).toBe(false);
    expect(off.fn("Enforce").env).toMatchObject({ WARDEN_EVENTS: "off", WARDEN_WATCH: "off" });
  });

  it("takes WARDEN_EVENTS_SILENCE_HOURS with events on, 1 to 168 hours, and refuses it otherwise", async () => {
    expect((await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_EVENTS_SILENCE_HOURS: "6" })).fn("Enforce").env).toMatchObject({ WARDEN_EVENTS_SILENCE_HOURS: "6" });
    for (const bad of ["0", "-1", "a day", "169", "1.5"]) {
      await expect(deploy("staging", { WARDEN_EVENTS: "on", WARDEN_EVENTS_SILENCE_HOURS: bad }), bad).rejects.toThrow(`WARDEN_EVENTS_SILENCE_HOURS must be a whole number of hours from 1 to 168, not "${bad}"`);
    }
    await expect(deploy("staging", { WARDEN_EVENTS_SILENCE_HOURS: "6" })).rejects.toThrow("WARDEN_EVENTS_SILENCE_HOURS is set without WARDEN_EVENTS=on");
  });

  it("lets Enforce alone write the last full run's unmatched rules; Watch and the Worker only read them, the endpoints not at all", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const can = (name: string, action: string) => allows(deployed.fn(name), action, CLAIMS, { "dynamodb:LeadingKeys": ["rules:last-sweep"] });
    expect(can("Enforce", "dynamodb:PutItem")).toBe(true);
    for (const name of ["Watch", "Worker"]) {
      expect(can(name, "dynamodb:GetItem"), name).toBe(true);
      for (const action of ["dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"]) expect(can(name, action), `${name} ${action}`).toBe(false);
    }
    for (const name of ["Chatops", "Events", "Workflows"]) {
      for (const action of ["dynamodb:GetItem", "dynamodb:PutItem"]) expect(can(name, action), `${name} ${action}`).toBe(false);
    }
    // Enforce only overwrites it: the item outlives any one run.
    expect(allows(deployed.fn("Enforce"), "dynamodb:DeleteItem", CLAIMS, { "dynamodb:LeadingKeys": ["rules:last-sweep"] })).toBe(false);
  });

  it("reserves concurrency for the public functions (10, or WARDEN_ENDPOINT_CONCURRENCY), and for no job", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    for (const [name, f] of deployed.functions()) {
      expect(f.lambda["reservedConcurrentExecutions"], name).toBe(["Chatops", "Events"].includes(name) ? 10 : undefined);
    }
    const three = await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_ENDPOINT_CONCURRENCY: "3" });
    expect(three.fn("Chatops").lambda["reservedConcurrentExecutions"]).toBe(3);
    expect(three.fn("Events").lambda["reservedConcurrentExecutions"]).toBe(3);
    for (const bad of ["0", "-1", "many", "1001"]) {
      await expect(deploy("staging", { WARDEN_ENDPOINT_CONCURRENCY: bad }), bad).rejects.toThrow(`WARDEN_ENDPOINT_CONCURRENCY must be a whole number of concurrent executions from 1 to 1000, not "${bad}"`);
    }
  });

  it("refuses a deploy whose endpoints' secret is the jobs' or is missing, and needs none without chat-ops and events", async () => {
    await expect(deploy("staging", { WARDEN_ENDPOINT_SECRET_ARN: SECRET })).rejects.toThrow("WARDEN_ENDPOINT_SECRET_ARN names the jobs' secret (WARDEN_SECRET_ARN)");
    await expect(deploy("staging", { WARDEN_ENDPOINT_SECRET_ARN: undefined })).rejects.toThrow("WARDEN_ENDPOINT_SECRET_ARN must be set with chat-ops or events on");
    const none = await deploy("staging", { WARDEN_ENDPOINT_SECRET_ARN: undefined, WARDEN_CHATOPS: "off" });
    for (const [name, f] of none.functions()) expect(f.env, name).not.toHaveProperty("WARDEN_ENDPOINT_SECRET_ARN");
  });
});

describe("sst.config.ts alarms", () => {
  it("alarms per job, into the SNS topic, when a run fails, its guard trips or actions fail", async () => {
    const deployed = await deploy("production");
    expect(deployed.alarms().map((a) => a.name).sort()).toEqual(
      ["EnforceActionsFailed", "EnforceFailed", "EnforceGuardTripped", "EnforceHeartbeat", "MissedByEvents", "WatchBehind", "WorkflowsActionsFailed", "WorkflowsFailed", "WorkflowsGuardTripped", "WorkflowsHeartbeat"],
    );
    const topic = deployed.topicArn();
    // The watch's own: behind GitLab's audit events, or not polling (no metric counts as behind).
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "WatchBehind")).toEqual({
      name: "warden-production-watch-behind",
      alarmDescription: expect.stringMatching(/^Warden watch \(production\): .*behind GitLab's audit events, or has not polled/),
      namespace: "Warden",
      metricName: "WatchCursorAgeSeconds",
      dimensions: { service: "warden", stage: "production", job: "enforce", trigger: "watch" },
      statistic: "Minimum",
      period: 300,
      evaluationPeriods: 3,
      comparisonOperator: "GreaterThanThreshold",
      threshold: 900,
      treatMissingData: "breaching",
      alarmActions: [topic],
      okActions: [topic],
    });
    const metricOf = { Failed: "RunFailed", GuardTripped: "GuardTripped", ActionsFailed: "ActionsFailed" } as const;
    for (const [suffix, metricName] of Object.entries(metricOf)) {
      expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", `Enforce${suffix}`)).toEqual({
        name: `warden-production-enforce-${suffix.replace(/(?<=.)([A-Z])/g, "-$1").toLowerCase()}`,
        alarmDescription: expect.stringMatching(/^Warden enforce \(production\): /),
        namespace: "Warden",
        metricName,
        dimensions: { service: "warden", stage: "production", job: "enforce" },
        statistic: "Sum",
        period: 300,
        evaluationPeriods: 1,
        comparisonOperator: "GreaterThanOrEqualToThreshold",
        threshold: 1,
        treatMissingData: "notBreaching",
        alarmActions: [topic],
        okActions: [topic],
      });
    }
  });

  it("watches the watchers: a sweep's misses with the watch or the stream deployed, the stream's silence with events on (issue 29.2)", async () => {
    const events = await deploy("production", { WARDEN_EVENTS: "on" });
    for (const [name, metricName] of [["MissedByEvents", "MissedByEvents"], ["EventsSilent", "EventsSilent"]] as const) {
      expect(events.one("aws:cloudwatch/metricAlarm:MetricAlarm", name), name).toMatchObject({
        name: `warden-production-enforce-${name === "MissedByEvents" ? "missed-by-events" : "events-silent"}`,
        namespace: "Warden",
        metricName,
        dimensions: { service: "warden", stage: "production", job: "enforce" },
        comparisonOperator: "GreaterThanOrEqualToThreshold",
        threshold: 1,
        alarmActions: [events.topicArn()],
      });
    }
    const watchOnly = await deploy("production");
    expect(watchOnly.has("aws:cloudwatch/metricAlarm:MetricAlarm", "EventsSilent")).toBe(false);
    const neither = await deploy("production", { WARDEN_WATCH_SCHEDULE: "off" });
    expect(neither.has("aws:cloudwatch/metricAlarm:MetricAlarm", "MissedByEvents")).toBe(false);
  });

  it("watches metrics the functions really write: each alarm's namespace, metric and dimensions are in a run's EMF record", async () => {
    const deployed = await deploy("production", { WARDEN_EVENTS: "on" });
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const report = { job: "enforce", dryRun: false, summary: { guard: "ok", complete: true }, actions: [], stats: { requests: 1, retries: 0, rateLimited: 0, pages: 1, durationMs: 5 }, warnings: [] };
    // A sweep's judgement of the event-driven paths (functions/lib/runs/event-coverage.ts).
    const judged = { missedByEvents: { from: "2025-01-01T00:00:00.000Z", to: "2025-01-02T00:00:00.000Z", count: 0, shares: [], undated: 0 }, eventDelivery: { last: null, silentHours: 24, silent: false } };
    for (const job of ["enforce", "workflows"] as const) recordRun({ report: { ...report, ...(job === "enforce" ? judged : {}), job } as never }, { job, trigger: "schedule", stage: "production" });
    recordCursorAge(0, { job: "enforce", trigger: "watch", stage: "production" });
    write.mockRestore();
    const records = emfRecords(lines.flatMap((l) => l.split("\n")).filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>));
    expect(records).toHaveLength(3);
    for (const alarm of deployed.alarms()) {
      const { namespace, metricName, dimensions } = alarm.inputs as { namespace: string; metricName: string; dimensions: Record<string, string> };
      const published = records.some((r) =>
        r._aws.CloudWatchMetrics.some(
          (d) =>
            d.Namespace === namespace &&
            d.Metrics.some((m) => m.Name === metricName) &&
            d.Dimensions.some((set) => set.length === Object.keys(dimensions).length && set.every((name) => r[name] === dimensions[name])),
        ),
      );
      expect(published, alarm.name).toBe(true);
    }
  });

  it("raises the heartbeat when no scheduled run succeeded in two schedule periods, missing data included", async () => {
    const deployed = await deploy();
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "EnforceHeartbeat")).toMatchObject({
      namespace: "Warden",
      metricName: "RunSucceeded",
      dimensions: { service: "warden", stage: "staging", job: "enforce", trigger: "schedule" },
      statistic: "Sum",
      period: 86_400,
      evaluationPeriods: 2,
      comparisonOperator: "LessThanThreshold",
      threshold: 1,
      treatMissingData: "breaching",
      alarmActions: [deployed.topicArn()],
    });
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "WorkflowsHeartbeat")).toMatchObject({ period: 3_600, evaluationPeriods: 2, dimensions: { job: "workflows", trigger: "schedule" } });
  });

  it("sizes the heartbeat to the schedule, leaves it out for a schedule turned off, and refuses a rate CloudWatch cannot watch", async () => {
    const deployed = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "rate(6 hours)", WARDEN_WORKFLOWS_SCHEDULE: "cron(0 3 * * ? *)" });
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "EnforceHeartbeat")).toMatchObject({ period: 21_600 });
    expect(deployed.one("aws:cloudwatch/metricAlarm:MetricAlarm", "WorkflowsHeartbeat")).toMatchObject({ period: 86_400 });
    const off = await deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "off" });
    expect(off.alarms().map((a) => a.name)).not.toContain("EnforceHeartbeat");
    expect(off.alarms().map((a) => a.name)).toContain("EnforceFailed");
    await expect(deploy("staging", { WARDEN_ENFORCE_SCHEDULE: "rate(4 days)" })).rejects.toThrow('WARDEN_ENFORCE_SCHEDULE: "rate(4 days)" is longer than CloudWatch\'s heartbeat alarm can watch');
  });

  it("subscribes WARDEN_ALARM_EMAIL to the alarm topic, only when set, and refuses what is not an address", async () => {
    expect((await deploy()).all("aws:sns/topicSubscription:TopicSubscription")).toEqual([]);
    const subscribed = await deploy("staging", { WARDEN_ALARM_EMAIL: "ops@example.com" });
    expect(subscribed.one("aws:sns/topicSubscription:TopicSubscription", "AlarmEmail")).toEqual({ topic: subscribed.topicArn(), protocol: "email", endpoint: "ops@example.com" });
    await expect(deploy("staging", { WARDEN_ALARM_EMAIL: "ops at example.com" })).rejects.toThrow('WARDEN_ALARM_EMAIL: "ops at example.com" is not an e-mail address');
  });

  it("alarms only on the jobs deployed; the watch's own only when its schedule is on", async () => {
    const deployed = await deploy("staging", { N8N_URL: undefined });
    expect(deployed.alarms().map((a) => a.name).sort()).toEqual(["EnforceActionsFailed", "EnforceFailed", "EnforceGuardTripped", "EnforceHeartbeat", "MissedByEvents", "WatchBehind"]);
    const watchOff = await deploy("staging", { N8N_URL: undefined, WARDEN_WATCH_SCHEDULE: "off" });
    expect(watchOff.alarms().map((a) => a.name)).not.toContain("WatchBehind");
    const n8nOnly = await deploy("staging", { GITLAB_URL: undefined });
    expect(n8nOnly.alarms().every((a) => a.name.startsWith("Workflows"))).toBe(true);
  }, 60_000);
});

afterAll(removeBuilds);
