/**
 * sst.config.ts evaluated with stand-ins for SST's globals ($config, $app, $interpolate, sst.aws.*,
 * and the Pulumi AWS provider's aws.*) that record every resource and its arguments; SST itself
 * cannot run here (its CLI downloads Pulumi).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NODE_OPTIONS } from "../lib/config/node-options.ts";

interface Recorded {
  type: "Function" | "Workflow" | "CronV2" | "Dynamo" | "Bucket" | "SnsTopic" | "MetricAlarm" | "TopicSubscription" | "BucketLifecycleConfigurationV2";
  name: string;
  args: Record<string, unknown>;
}

let resources: Recorded[];

/** An SST Function stand-in: its outputs are placeholders naming the resource they come from. */
class FunctionStub {
  readonly name: string;
  readonly arn: string;
  readonly url: string;
  constructor(name: string, args: Record<string, unknown>) {
    resources.push({ type: "Function", name, args });
    this.name = `<${name}.name>`;
    this.arn = `<${name}.arn>`;
    this.url = `<${name}.url>`;
  }
}

/** An SST Workflow stand-in, with the published version it is invoked through. */
class WorkflowStub {
  readonly name: string;
  readonly arn: string;
  readonly qualifier: string;
  constructor(name: string, args: Record<string, unknown>) {
    resources.push({ type: "Workflow", name, args });
    this.name = `<${name}.name>`;
    this.arn = `<${name}.arn>`;
    this.qualifier = `<${name}.qualifier>`;
  }
}

/** A resource stand-in whose outputs (name, arn) are placeholders naming it, as for FunctionStub. */
const recorder = (type: Recorded["type"]) =>
  class {
    readonly name: string;
    readonly arn: string;
    constructor(name: string, args: Record<string, unknown> = {}) {
      resources.push({ type, name, args });
      this.name = `<${name}.name>`;
      this.arn = `<${name}.arn>`;
    }
  };

const CronV2Stub = recorder("CronV2");

/** `$interpolate` over placeholders: the string it will become. */
const interpolate = (literals: TemplateStringsArray, ...values: unknown[]) => String.raw({ raw: literals }, ...values);

const DEPLOY_ENV = {
  WARDEN_SECRET_ARN: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-AbCdEf",
  GITLAB_URL: "https://gitlab.example.com",
  N8N_URL: "https://n8n.example.com",
  WARDEN_POLICY_FILE: "examples/warden.yaml",
};

beforeEach(() => {
  resources = [];
  vi.stubGlobal("$config", (config: unknown) => config);
  vi.stubGlobal("$interpolate", interpolate);
  vi.stubGlobal("sst", { aws: { Function: FunctionStub, Workflow: WorkflowStub, CronV2: CronV2Stub, Dynamo: recorder("Dynamo"), Bucket: recorder("Bucket"), SnsTopic: recorder("SnsTopic") } });
  vi.stubGlobal("aws", {
    cloudwatch: { MetricAlarm: recorder("MetricAlarm") },
    sns: { TopicSubscription: recorder("TopicSubscription") },
    s3: { BucketLifecycleConfigurationV2: recorder("BucketLifecycleConfigurationV2") },
  });
  for (const [name, value] of Object.entries(DEPLOY_ENV)) vi.stubEnv(name, value);
  for (const name of ["WARDEN_ENFORCE_SCHEDULE", "WARDEN_WORKFLOWS_SCHEDULE", "WARDEN_REPORT_ONLY", "WARDEN_CHATOPS", "WARDEN_SECRET_KMS_KEY_ARN", "WARDEN_ALARM_EMAIL", "WARDEN_RUN_HISTORY_DAYS", "WARDEN_ENFORCE_EXECUTION_HOURS", "WARDEN_EXECUTION_RETENTION_DAYS"]) {
    vi.stubEnv(name, undefined);
  }
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

async function deploy(stage = "staging") {
  vi.stubGlobal("$app", { name: "warden", stage });
  vi.resetModules();
  const config = (await import("../sst.config.ts")).default;
  const outputs = await config.run();
  return { app: config.app({ stage }), outputs };
}

type FunctionArgs = {
  handler: string;
  runtime: string;
  /** A Workflow's is { invocation, execution }. */
  timeout: string | { invocation: string; execution: string };
  environment: Record<string, string>;
  permissions: { actions: string[]; resources: string[] }[];
  copyFiles: { from: string; to: string }[];
  retries?: number;
};

/**
 * Every function: those created directly (Functions and Workflows) and those the crons create from their
 * `function` args (a cron given a Workflow creates none).
 */
function functions(): [string, FunctionArgs][] {
  return resources.flatMap((r): [string, FunctionArgs][] => {
    if (r.type === "Function" || r.type === "Workflow") return [[r.name, r.args as unknown as FunctionArgs]];
    if (r.type === "CronV2" && !(r.args["function"] instanceof WorkflowStub)) return [[r.name, r.args["function"] as FunctionArgs]];
    return [];
  });
}
const byName = (name: string) => resources.find((r) => r.name === name)!;
/** The one resource of that type and name: a Workflow and the CronV2 that starts it share a name. */
const find = (type: Recorded["type"], name: string) => resources.find((r) => r.type === type && r.name === name)!;
/** The functions and schedules; the operations resources have tests of their own below. */
const created = () => resources.filter((r) => r.type === "Function" || r.type === "Workflow" || r.type === "CronV2").map((r) => `${r.type} ${r.name}`);
const alarms = () => resources.filter((r) => r.type === "MetricAlarm");

describe("sst.config.ts", () => {
  it("creates the worker and chat-ops functions, the Enforce workflow and two CronV2 schedules", async () => {
    await deploy();
    expect(created()).toEqual(["Function Worker", "Function Chatops", "Workflow Enforce", "CronV2 Enforce", "CronV2 Workflows"]);
  });

  it("points every handler at a module that exports that function", async () => {
    await deploy();
    const handlers = functions().map(([, args]) => args.handler);
    expect(handlers.sort()).toEqual(["functions/chatops.handler", "functions/enforce.handler", "functions/worker.handler", "functions/workflows.handler"]);
    // Imported without the deploy settings: a handler module must load anywhere, and must not reach AWS doing so.
    vi.unstubAllEnvs();
    vi.stubEnv("WARDEN_SECRET_ARN", undefined);
    for (const handler of handlers) {
      const [file, exported] = [handler.slice(0, handler.lastIndexOf(".")), handler.slice(handler.lastIndexOf(".") + 1)];
      expect(existsSync(`${file}.ts`), file).toBe(true);
      const module = (await import(/* @vite-ignore */ pathToFileURL(resolve(`${file}.ts`)).href)) as Record<string, unknown>;
      expect(typeof module[exported], handler).toBe("function");
    }
  });

  it("schedules enforce daily and workflows hourly, with the fixed schedule input", async () => {
    await deploy();
    expect(find("CronV2", "Enforce").args).toMatchObject({ schedule: "rate(1 day)", enabled: true, event: { source: "schedule" } });
    expect(byName("Workflows").args).toMatchObject({ schedule: "rate(1 hour)", enabled: true, event: { source: "schedule" } });
  });

  it("schedules the Enforce workflow itself, with the fixed schedule event, and creates no second function for it", async () => {
    await deploy();
    const cron = find("CronV2", "Enforce").args;
    expect(cron["function"]).toBeInstanceOf(WorkflowStub);
    expect((cron["function"] as WorkflowStub).name).toBe("<Enforce.name>");
    expect(cron["event"]).toEqual({ source: "schedule" });
    expect(functions().filter(([, args]) => args.handler === "functions/enforce.handler").map(([name]) => name)).toEqual(["Enforce"]);
    // Workflows stays a plain function, which its cron creates.
    expect(byName("Workflows").args["function"]).toMatchObject({ handler: "functions/workflows.handler", timeout: "15 minutes" });
  });

  it("runs Enforce as a durable function: 15-minute invocations, a 24-hour execution, 14 days of history", async () => {
    await deploy();
    const enforce = find("Workflow", "Enforce").args;
    expect(enforce).toMatchObject({ handler: "functions/enforce.handler", runtime: "nodejs24.x", timeout: { invocation: "15 minutes", execution: "24 hours" }, retention: "14 days" });
    // The handler's lease and deadline follow the execution timeout; only Enforce has one.
    expect(enforce["environment"]).toMatchObject({ WARDEN_EXECUTION_TIMEOUT_SECONDS: "86400" });
    for (const [name, args] of functions()) if (name !== "Enforce") expect(args.environment, name).not.toHaveProperty("WARDEN_EXECUTION_TIMEOUT_SECONDS");
    // SST's WorkflowArgs has no retries, url or versioning.
    for (const option of ["retries", "url", "versioning"]) expect(enforce).not.toHaveProperty(option);
  });

  it("takes the execution timeout and retention from WARDEN_ENFORCE_EXECUTION_HOURS and WARDEN_EXECUTION_RETENTION_DAYS, within Lambda's limits", async () => {
    vi.stubEnv("WARDEN_ENFORCE_EXECUTION_HOURS", "8784");
    vi.stubEnv("WARDEN_EXECUTION_RETENTION_DAYS", "90");
    await deploy();
    expect(find("Workflow", "Enforce").args).toMatchObject({
      timeout: { invocation: "15 minutes", execution: "8784 hours" },
      retention: "90 days",
      environment: { WARDEN_EXECUTION_TIMEOUT_SECONDS: String(8784 * 3600) },
    });
    resources = [];
    vi.stubEnv("WARDEN_ENFORCE_EXECUTION_HOURS", "1");
    vi.stubEnv("WARDEN_EXECUTION_RETENTION_DAYS", "1");
    await deploy();
    expect(find("Workflow", "Enforce").args).toMatchObject({ timeout: { execution: "1 hour" }, retention: "1 day" });
    for (const bad of ["0", "-1", "1.5", "8785", "24h", "day"]) {
      vi.stubEnv("WARDEN_ENFORCE_EXECUTION_HOURS", bad);
      await expect(deploy(), bad).rejects.toThrow(`WARDEN_ENFORCE_EXECUTION_HOURS must be a whole number of hours from 1 to 8784, not "${bad}"`);
    }
    vi.stubEnv("WARDEN_ENFORCE_EXECUTION_HOURS", undefined);
    for (const bad of ["0", "91", "14 days", "2.5"]) {
      vi.stubEnv("WARDEN_EXECUTION_RETENTION_DAYS", bad);
      await expect(deploy(), bad).rejects.toThrow(`WARDEN_EXECUTION_RETENTION_DAYS must be a whole number of days from 1 to 90, not "${bad}"`);
    }
  });

  it("takes other schedules from the deploy environment, rate or six-field cron, and refuses a malformed one", async () => {
    vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", "cron(0 3 ? * MON-FRI *)");
    vi.stubEnv("WARDEN_WORKFLOWS_SCHEDULE", "rate(15 minutes)");
    await deploy();
    expect(find("CronV2", "Enforce").args["schedule"]).toBe("cron(0 3 ? * MON-FRI *)");
    expect(byName("Workflows").args["schedule"]).toBe("rate(15 minutes)");
    for (const bad of ["cron(0 3 * * *)", "rate(1 days)", "rate(2 hour)", "rate(0 minutes)", "daily"]) {
      vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", bad);
      await expect(deploy(), bad).rejects.toThrow(`WARDEN_ENFORCE_SCHEDULE: "${bad}" is not a schedule expression`);
    }
  });

  it('turns a schedule off with "off", keeping its function for console runs', async () => {
    vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", "off");
    await deploy();
    expect(find("CronV2", "Enforce").args).toMatchObject({ enabled: false, schedule: "rate(1 day)" });
    expect(find("CronV2", "Enforce").args["function"]).toBeInstanceOf(WorkflowStub);
    expect(find("Workflow", "Enforce").args).toMatchObject({ handler: "functions/enforce.handler" });
    expect(byName("Workflows").args).toMatchObject({ enabled: true });
    resources = [];
    vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", undefined);
    vi.stubEnv("WARDEN_WORKFLOWS_SCHEDULE", "off");
    await deploy();
    expect(find("CronV2", "Enforce").args).toMatchObject({ enabled: true });
    expect(byName("Workflows").args).toMatchObject({ enabled: false, schedule: "rate(1 hour)" });
  });

  it("every schedule it produces is a valid EventBridge Scheduler expression", async () => {
    await deploy();
    for (const cron of resources.filter((r) => r.type === "CronV2")) {
      expect(cron.args["schedule"]).toMatch(/^(rate\(1 (minute|hour|day)\)|rate\(([2-9]|\d\d+) (minutes|hours|days)\)|cron\(\S+( \S+){5}\))$/);
    }
  });

  it("runs every function on nodejs24.x with the timeouts the jobs need, and chat-ops within Slack's reach", async () => {
    await deploy();
    const timeouts = Object.fromEntries(functions().map(([name, args]) => [name, args.timeout]));
    expect(timeouts).toEqual({ Worker: "15 minutes", Chatops: "10 seconds", Enforce: { invocation: "15 minutes", execution: "24 hours" }, Workflows: "15 minutes" });
    expect(functions().every(([, args]) => args.runtime === "nodejs24.x")).toBe(true);
  });

  it("lets each function read the one secret, and ships the policy file next to the handlers", async () => {
    await deploy();
    expect(existsSync(DEPLOY_ENV.WARDEN_POLICY_FILE)).toBe(true);
    for (const [name, args] of functions()) {
      expect(args.permissions, name).toContainEqual({ actions: ["secretsmanager:GetSecretValue"], resources: [DEPLOY_ENV.WARDEN_SECRET_ARN] });
      expect(args.copyFiles, name).toEqual([{ from: DEPLOY_ENV.WARDEN_POLICY_FILE, to: "warden.yaml" }]);
      expect(args.environment, name).toMatchObject({ WARDEN_SECRET_ARN: DEPLOY_ENV.WARDEN_SECRET_ARN, GITLAB_URL: DEPLOY_ENV.GITLAB_URL, N8N_URL: DEPLOY_ENV.N8N_URL, NODE_OPTIONS });
      expect(JSON.stringify(args.environment), name).not.toMatch(/gitlabToken|n8nApiKey|slackSigningSecret/);
    }
  });

  it("opens chat-ops as a Function URL without IAM auth, linked to the worker it invokes by name, and outputs the URL", async () => {
    const { outputs } = await deploy();
    const chatops = byName("Chatops").args;
    expect(chatops).toMatchObject({ url: { authorization: "none" }, link: [expect.any(FunctionStub)], environment: { WARDEN_WORKER_FUNCTION: "<Worker.name>" } });
    expect((chatops["link"] as FunctionStub[])[0]!.name).toBe("<Worker.name>");
    expect(outputs).toEqual({
      chatopsUrl: "<Chatops.url>",
      runHistoryBucket: "<RunHistory.name>",
      alarmTopic: "<Alarms.arn>",
      enforceFunction: "<Enforce.name>",
      enforceVersion: "<Enforce.qualifier>",
    });
    for (const name of ["Worker", "Enforce", "Workflows"]) expect(functions().find(([n]) => n === name)![1]).not.toHaveProperty("url");
  });

  it("is report-only except on production unless told otherwise, and keeps production's resources on removal", async () => {
    const staging = await deploy("staging");
    expect(functions().every(([, args]) => args.environment["WARDEN_REPORT_ONLY"] === "true")).toBe(true);
    expect(staging.app).toMatchObject({ name: "warden", home: "aws", removal: "remove" });
    resources = [];
    const production = await deploy("production");
    expect(functions().every(([, args]) => args.environment["WARDEN_REPORT_ONLY"] === "false")).toBe(true);
    expect(production.app).toMatchObject({ removal: "retain", protect: true });
    resources = [];
    vi.stubEnv("WARDEN_REPORT_ONLY", "false");
    await deploy("staging");
    expect(functions().every(([, args]) => args.environment["WARDEN_REPORT_ONLY"] === "false")).toBe(true);
  });

  it("refuses to deploy without the secret, or without any service address", async () => {
    vi.stubEnv("WARDEN_SECRET_ARN", undefined);
    await expect(deploy()).rejects.toThrow("WARDEN_SECRET_ARN must be set to deploy Warden (stage staging)");
    vi.stubEnv("WARDEN_SECRET_ARN", DEPLOY_ENV.WARDEN_SECRET_ARN);
    vi.stubEnv("GITLAB_URL", undefined);
    vi.stubEnv("N8N_URL", "");
    await expect(deploy()).rejects.toThrow("GITLAB_URL, N8N_URL or both must be set to deploy Warden (stage staging)");
  });

  it.each([
    ["GitLab-only", "N8N_URL", "Workflows", ["Function Worker", "Function Chatops", "Workflow Enforce", "CronV2 Enforce"]],
    ["n8n-only", "GITLAB_URL", "Enforce", ["Function Worker", "Function Chatops", "CronV2 Workflows"]],
  ])("deploys %s: without %s, no %s function or schedule, and the address in no environment", async (_, unset, absent, expected) => {
    vi.stubEnv(unset, undefined);
    await deploy();
    expect(created()).toEqual(expected);
    expect(resources.some((r) => r.name === absent)).toBe(false);
    for (const [name, args] of functions()) expect(args.environment, name).not.toHaveProperty(unset);
  });

  it("leaves out chat-ops and its worker with WARDEN_CHATOPS=off, and refuses any value but on and off", async () => {
    vi.stubEnv("WARDEN_CHATOPS", "off");
    const { outputs } = await deploy();
    expect(created()).toEqual(["Workflow Enforce", "CronV2 Enforce", "CronV2 Workflows"]);
    expect(outputs).not.toHaveProperty("chatopsUrl");
    resources = [];
    vi.stubEnv("WARDEN_CHATOPS", "on");
    await deploy();
    expect(created()).toContain("Function Chatops");
    vi.stubEnv("WARDEN_CHATOPS", "false");
    await expect(deploy()).rejects.toThrow('WARDEN_CHATOPS must be "on" or "off", not "false"');
  });

  it("adds kms:Decrypt on the secret's key to every function when WARDEN_SECRET_KMS_KEY_ARN is set, and nothing otherwise", async () => {
    await deploy();
    expect(JSON.stringify(functions().map(([, args]) => args.permissions))).not.toContain("kms:");
    resources = [];
    const key = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    vi.stubEnv("WARDEN_SECRET_KMS_KEY_ARN", key);
    await deploy();
    for (const [name, args] of functions()) expect(args.permissions, name).toContainEqual({ actions: ["kms:Decrypt"], resources: [key] });
    for (const alias of ["alias/warden", "arn:aws:kms:eu-west-1:123456789012:alias/warden", "1234abcd-12ab-34cd-56ef-1234567890ab"]) {
      vi.stubEnv("WARDEN_SECRET_KMS_KEY_ARN", alias);
      await expect(deploy(), alias).rejects.toThrow(`WARDEN_SECRET_KMS_KEY_ARN: "${alias}" is not a KMS key ARN`);
    }
  });

  it("turns off Lambda's retries of the asynchronously invoked functions (Workflows' schedule and worker), not of chat-ops; a Workflow takes none", async () => {
    await deploy();
    const retries = Object.fromEntries(functions().map(([name, args]) => [name, args.retries]));
    expect(retries).toEqual({ Worker: 0, Chatops: undefined, Enforce: undefined, Workflows: 0 });
  });

  it.each(["1", "yes", "TRUE", "no"])("refuses WARDEN_REPORT_ONLY=%s: only true and false are understood", async (value) => {
    vi.stubEnv("WARDEN_REPORT_ONLY", value);
    await expect(deploy("production")).rejects.toThrow(`WARDEN_REPORT_ONLY must be "true" or "false", not "${value}"`);
  });

  it("keeps chat-ops' claims and Enforce's lease in one DynamoDB table with a TTL, which only chat-ops, the worker and Enforce may write", async () => {
    await deploy();
    expect(resources.filter((r) => r.type === "Dynamo")).toHaveLength(1);
    expect(byName("Claims")).toMatchObject({ type: "Dynamo", args: { fields: { id: "string" }, primaryIndex: { hashKey: "id" }, ttl: "expiresAt" } });
    const actions: Record<string, string[]> = {
      Chatops: ["dynamodb:PutItem", "dynamodb:GetItem"],
      Worker: ["dynamodb:PutItem", "dynamodb:GetItem"],
      // The lease is released when the run ends.
      Enforce: ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"],
    };
    for (const [name, args] of functions()) {
      const allowed = actions[name];
      if (allowed) {
        expect(args.environment, name).toMatchObject({ WARDEN_CLAIMS_TABLE: "<Claims.name>" });
        expect(args.permissions.filter((p) => p.actions.some((a) => a.startsWith("dynamodb:"))), name).toEqual([{ actions: allowed, resources: ["<Claims.arn>"] }]);
      } else {
        expect(args.environment, name).not.toHaveProperty("WARDEN_CLAIMS_TABLE");
        expect(JSON.stringify(args.permissions), name).not.toContain("dynamodb:");
      }
    }
  });

  it("creates the claims table for Enforce's lease without chat-ops, and none with neither chat-ops nor GITLAB_URL", async () => {
    vi.stubEnv("WARDEN_CHATOPS", "off");
    await deploy();
    expect(byName("Claims")).toMatchObject({ type: "Dynamo", args: { ttl: "expiresAt" } });
    const enforce = find("Workflow", "Enforce").args as unknown as FunctionArgs;
    expect(enforce.environment).toMatchObject({ WARDEN_CLAIMS_TABLE: "<Claims.name>" });
    expect(enforce.permissions).toContainEqual({ actions: ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"], resources: ["<Claims.arn>"] });
    resources = [];
    vi.stubEnv("GITLAB_URL", undefined);
    const { outputs } = await deploy();
    expect(resources.some((r) => r.type === "Dynamo" || r.type === "Workflow")).toBe(false);
    expect(outputs).not.toHaveProperty("enforceFunction");
  });

  it("keeps applying runs' reports in a bucket that expires them after 90 days (WARDEN_RUN_HISTORY_DAYS), written by the jobs alone", async () => {
    await deploy();
    expect(byName("RunHistory").type).toBe("Bucket");
    expect(byName("RunHistoryExpiry").args).toEqual({ bucket: "<RunHistory.name>", rules: [{ id: "expire-runs", status: "Enabled", filter: { prefix: "runs/" }, expiration: { days: 90 } }] });
    for (const [name, args] of functions()) {
      if (name === "Chatops") {
        expect(args.environment).not.toHaveProperty("WARDEN_RUN_HISTORY_BUCKET");
        expect(JSON.stringify(args.permissions)).not.toContain("s3:");
        continue;
      }
      expect(args.environment, name).toMatchObject({ WARDEN_RUN_HISTORY_BUCKET: "<RunHistory.name>" });
      expect(args.permissions, name).toContainEqual({ actions: ["s3:PutObject", "s3:GetObject"], resources: ["<RunHistory.arn>/runs/*"] });
      expect(args.permissions, name).toContainEqual({ actions: ["s3:ListBucket"], resources: ["<RunHistory.arn>"] });
    }
    resources = [];
    vi.stubEnv("WARDEN_RUN_HISTORY_DAYS", "30");
    await deploy();
    expect(byName("RunHistoryExpiry").args).toMatchObject({ rules: [{ expiration: { days: 30 } }] });
    for (const bad of ["0", "-1", "1.5", "ninety"]) {
      vi.stubEnv("WARDEN_RUN_HISTORY_DAYS", bad);
      await expect(deploy(), bad).rejects.toThrow(`WARDEN_RUN_HISTORY_DAYS must be a whole number of days (1 or more), not "${bad}"`);
    }
  });

  it("names the stage in every function's environment, for Slack summaries and metrics", async () => {
    await deploy("production");
    for (const [name, args] of functions()) expect(args.environment, name).toMatchObject({ WARDEN_STAGE: "production" });
  });

  it("alarms per job, into the SNS topic, when a run fails, its guard trips or actions fail", async () => {
    await deploy("production");
    expect(alarms().map((a) => a.name).sort()).toEqual(
      ["EnforceActionsFailed", "EnforceFailed", "EnforceGuardTripped", "EnforceHeartbeat", "WorkflowsActionsFailed", "WorkflowsFailed", "WorkflowsGuardTripped", "WorkflowsHeartbeat"],
    );
    expect(resources.find((r) => r.type === "SnsTopic")?.name).toBe("Alarms");
    const metricOf = { Failed: "RunFailed", GuardTripped: "GuardTripped", ActionsFailed: "ActionsFailed" } as const;
    for (const [suffix, metricName] of Object.entries(metricOf)) {
      expect(byName(`Enforce${suffix}`).args).toEqual({
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
        alarmActions: ["<Alarms.arn>"],
        okActions: ["<Alarms.arn>"],
      });
    }
  });

  it("raises the heartbeat when no scheduled run succeeded in two schedule periods, missing data included", async () => {
    await deploy();
    expect(byName("EnforceHeartbeat").args).toMatchObject({
      namespace: "Warden",
      metricName: "RunSucceeded",
      dimensions: { service: "warden", stage: "staging", job: "enforce", trigger: "schedule" },
      statistic: "Sum",
      period: 86_400,
      evaluationPeriods: 2,
      comparisonOperator: "LessThanThreshold",
      threshold: 1,
      treatMissingData: "breaching",
      alarmActions: ["<Alarms.arn>"],
    });
    expect(byName("WorkflowsHeartbeat").args).toMatchObject({ period: 3_600, evaluationPeriods: 2, dimensions: { job: "workflows", trigger: "schedule" } });
  });

  it("sizes the heartbeat to the schedule, leaves it out for a schedule turned off, and refuses a rate CloudWatch cannot watch", async () => {
    vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", "rate(6 hours)");
    vi.stubEnv("WARDEN_WORKFLOWS_SCHEDULE", "cron(0 3 * * ? *)");
    await deploy();
    expect(byName("EnforceHeartbeat").args).toMatchObject({ period: 21_600 });
    expect(byName("WorkflowsHeartbeat").args).toMatchObject({ period: 86_400 });
    resources = [];
    vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", "off");
    await deploy();
    expect(alarms().map((a) => a.name)).not.toContain("EnforceHeartbeat");
    expect(alarms().map((a) => a.name)).toContain("EnforceFailed");
    vi.stubEnv("WARDEN_ENFORCE_SCHEDULE", "rate(4 days)");
    await expect(deploy()).rejects.toThrow('WARDEN_ENFORCE_SCHEDULE: "rate(4 days)" is longer than CloudWatch\'s heartbeat alarm can watch');
  });

  it("subscribes WARDEN_ALARM_EMAIL to the alarm topic, only when set, and refuses what is not an address", async () => {
    await deploy();
    expect(resources.some((r) => r.type === "TopicSubscription")).toBe(false);
    vi.stubEnv("WARDEN_ALARM_EMAIL", "ops@example.com");
    resources = [];
    await deploy();
    expect(byName("AlarmEmail")).toMatchObject({ type: "TopicSubscription", args: { topic: "<Alarms.arn>", protocol: "email", endpoint: "ops@example.com" } });
    vi.stubEnv("WARDEN_ALARM_EMAIL", "ops at example.com");
    await expect(deploy()).rejects.toThrow('WARDEN_ALARM_EMAIL: "ops at example.com" is not an e-mail address');
  });

  it("alarms only on the jobs deployed", async () => {
    vi.stubEnv("N8N_URL", undefined);
    await deploy();
    expect(alarms().every((a) => a.name.startsWith("Enforce"))).toBe(true);
    expect(alarms()).toHaveLength(4);
  });
});
