/**
 * sst.config.ts deployed as SST 4.17 deploys it, short of AWS: app() evaluated from a bundle built the
 * way SST builds it (where a top-level import is refused), then run() bundled with the platform's
 * globals and run under Pulumi's resource mocks (build.ts), against the real @pulumi/aws resource
 * classes and a stand-in of SST's components that keeps SST's rules (platform/). `deploy()` gives the
 * resources Pulumi was asked to create, read the way an operator reads a plan; the test/sst-config*.test.ts
 * files assert on them. SST itself cannot run here: its CLI downloads Pulumi.
 */
import { afterAll, expect, vi } from "vitest";
import { buildRun, evaluateRun, refusedRuns, removeBuilds, type Deployed, type SstApp } from "./build.ts";

// Each test deploys the config one or more times (a bundle, then Pulumi's mocks over every resource):
// seconds each on a quiet machine, many more on a loaded CI runner, so the tests of a file that imports
// this module get more time; and its bundles are removed once they have run.
vi.setConfig({ testTimeout: 90_000 });
afterAll(removeBuilds);

export const SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-AbCdEf";
export const ENDPOINT_SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-endpoints-GhIjKl";
export const EVENTS_SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-events-MnOpQr";
export const N8N_SECRET = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-n8n-StUvWx";
export const DEPLOY_ENV = { WARDEN_SECRET_ARN: SECRET, WARDEN_ENDPOINT_SECRET_ARN: ENDPOINT_SECRET, WARDEN_EVENTS_SECRET_ARN: EVENTS_SECRET, GITLAB_URL: "https://gitlab.example.com", N8N_URL: "https://n8n.example.com", WARDEN_POLICY_FILE: "examples/warden.yaml" };
/** Every other documented deploy variable, unset unless a test sets it. */
export const UNSET = Object.fromEntries(
  ["WARDEN_ENFORCE_SCHEDULE", "WARDEN_WORKFLOWS_SCHEDULE", "WARDEN_REPORT_ONLY", "WARDEN_CHATOPS", "WARDEN_SECRET_KMS_KEY_ARN", "WARDEN_ALARM_EMAIL", "WARDEN_RUN_HISTORY_DAYS", "WARDEN_ENFORCE_EXECUTION_HOURS", "WARDEN_EXECUTION_RETENTION_DAYS", "WARDEN_POLICY_PROJECT", "WARDEN_POLICY_PATH", "WARDEN_POLICY_REF", "WARDEN_POLICY_ALLOW_UNPROTECTED_REF", "WARDEN_EVENTS", "WARDEN_ALLOW_HTTP", "WARDEN_ENDPOINT_CONCURRENCY", "WARDEN_WORKER_CONCURRENCY", "WARDEN_N8N_SECRET_ARN"].map((n) => [n, undefined]),
);

export type Env = Record<string, string | undefined>;
export type Inputs = Record<string, any>;
export interface Statement { actions: string[]; resources: string[]; conditions?: Record<string, Record<string, string[]>> }
/** A statement as IAM reads it, Deny and NotResource included: an inline policy beside SST's own, or an aws.iam.RolePolicy. */
export interface RoleStatement { effect: "Allow" | "Deny"; actions: string[]; resources?: string[]; notResources?: string[] }

type PolicyStatement = { Effect?: RoleStatement["effect"]; Action: string | string[]; Resource?: string | string[]; NotResource?: string | string[]; Condition?: Statement["conditions"] };
const list = <T>(v: T | T[] | undefined): T[] | undefined => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
const roleStatement = (s: PolicyStatement): RoleStatement => ({
  effect: s.Effect ?? "Allow",
  actions: list(s.Action)!,
  ...(s.Resource === undefined ? {} : { resources: list(s.Resource) }),
  ...(s.NotResource === undefined ? {} : { notResources: list(s.NotResource) }),
});

/** What app() gives each stage (the first test holds app() to it): the run() build's $app, so that each of SST's two builds fails its own tests. */
export const appOf = (stage: string): SstApp => ({ name: "warden", home: "aws", removal: stage === "production" ? "retain" : "remove", protect: stage === "production" });

export const builds = new Map<string, Promise<{ app: SstApp; bundle: string }>>();
/** The run() bundle, built once per stage: the deploy settings are read at run time, from the environment. */
export function built(stage: string) {
  if (!builds.has(stage)) builds.set(stage, buildRun(appOf(stage), stage).then((bundle) => ({ app: appOf(stage), bundle })));
  return builds.get(stage)!;
}

/** The resources of one deploy, read the way an operator reads a plan. */
export class Deploy {
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
export class FunctionView {
  private readonly deploy: Deploy;
  readonly component: string;
  constructor(deploy: Deploy, component: string) {
    this.deploy = deploy;
    this.component = component;
  }
  get args(): Inputs { return this.deploy.one("sst:aws:Function", this.component); }
  get lambda(): Inputs { return this.deploy.one("aws:lambda/function:Function", `${this.component}Function`); }
  get env(): Record<string, string> { return this.lambda["environment"].variables; }
  private get inline(): PolicyStatement[] {
    const inline = this.deploy.one("aws:iam/role:Role", `${this.component}Role`)["inlinePolicies"] as { policy: string }[];
    return inline.flatMap((p) => JSON.parse(p.policy).Statement as PolicyStatement[]);
  }
  /** The inline policies' Allow statements (SST's own: its permissions and links). */
  get statements(): Statement[] {
    return this.inline.filter((s) => (s.Effect ?? "Allow") === "Allow").map((s) => ({ actions: list(s.Action)!, resources: list(s.Resource)!, ...(s.Condition ? { conditions: s.Condition } : {}) }));
  }
  /** The AWS managed policies attached to the function's role. */
  get managedPolicyArns(): string[] { return this.deploy.one("aws:iam/role:Role", `${this.component}Role`)["managedPolicyArns"]; }
  /** The statements of the role's other policies: inline Denies beside SST's own, and every aws.iam.RolePolicy attached (by its physical name). */
  get rolePolicyStatements(): RoleStatement[] {
    const attached = this.deploy
      .all("aws:iam/rolePolicy:RolePolicy")
      .filter((p) => p.inputs["role"] === `${this.component}Role-a1b2c3`)
      .flatMap((p) => JSON.parse(String(p.inputs["policy"])).Statement as PolicyStatement[]);
    return [...this.inline.filter((s) => s.Effect === "Deny"), ...attached].map(roleStatement);
  }
  /** How many aws.iam.RolePolicy resources are attached to the role: SST's Role owns its inline policies as a whole, so none should be. */
  get attachedRolePolicies(): number {
    return this.deploy.all("aws:iam/rolePolicy:RolePolicy").filter((p) => p.inputs["role"] === `${this.component}Role-a1b2c3`).length;
  }
  /** As evaluate.ts names it: the name the config gives it, else the made-up physical one. */
  get physicalName(): string { return (this.lambda["name"] as string | undefined) ?? `${this.component}Function-a1b2c3`; }
  /** The log group SST made for it, by name: the one the function logs into (the Lambda's loggingConfig names it). */
  get logGroup(): string { return this.deploy.one("aws:cloudwatch/logGroup:LogGroup", `${this.component}LogGroup`)["name"]; }
  get arn() { return `arn:aws:lambda:eu-west-1:123456789012:function:${this.physicalName}`; }
}

/** The ARN evaluate.ts gives a resource (test/support/sst/evaluate.ts `state`). */
export function arnOf(type: string, name: string): string {
  const physical = `${name}-a1b2c3`;
  if (type === "aws:lambda/function:Function") return `arn:aws:lambda:eu-west-1:123456789012:function:${physical}`;
  if (type === "aws:dynamodb/table:Table") return `arn:aws:dynamodb:eu-west-1:123456789012:table/${physical}`;
  if (type === "aws:s3/bucket:Bucket") return `arn:aws:s3:::${physical}`;
  return `arn:aws:${type.split(/[:/]/)[1]}:eu-west-1:123456789012:${physical}`;
}

/**
 * The deploys evaluated in this test file, by stage and the whole environment the program sees: the same
 * program under the same settings asks for the same resources, and each evaluation is a Pulumi process
 * of a second or two (sst-config.test.ts alone deployed the defaults 14 times).
 */
const evaluated = new Map<string, Promise<Deployed>>();

export async function deploy(stage = "staging", env: Env = {}): Promise<Deploy> {
  const { app, bundle } = await built(stage);
  const settings = { ...UNSET, ...DEPLOY_ENV, ...env };
  const seen = Object.entries({ ...process.env, ...settings }).filter(([, value]) => value !== undefined);
  const key = JSON.stringify([stage, seen.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  if (!evaluated.has(key)) evaluated.set(key, evaluateRun(bundle, stage, settings));
  // A copy each: a test may not change what another reads.
  return new Deploy(app, structuredClone(await evaluated.get(key)!));
}

/**
 * The error each of these deploys is refused with (null where it deployed), under the settings deploy()
 * gives them, all run in one Pulumi process (build.ts refusedRuns): a process each was about a second,
 * and the config's tests refuse dozens of values.
 */
export async function refusals(envs: Env[], stage = "staging"): Promise<(string | null)[]> {
  const { bundle } = await built(stage);
  return refusedRuns(bundle, stage, envs.map((env) => ({ ...UNSET, ...DEPLOY_ENV, ...env })));
}

/** Expects the deploy under `env(value)` refused for each value, with an error holding `message(value)`. */
export async function expectRefused(values: string[], env: (value: string) => Env, message: (value: string) => string): Promise<void> {
  expect(await refusals(values.map(env))).toEqual(values.map((value) => expect.stringContaining(message(value))));
}

export const BUCKET = "RunHistoryBucket-a1b2c3";
export const CLAIMS = arnOf("aws:dynamodb/table:Table", "ClaimsTable");
