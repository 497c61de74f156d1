/**
 * A stand-in for SST 4.17's `sst.aws.*` components, as far as sst.config.ts uses them: each takes SST's
 * own argument names (types named as SST exports them, for the options Warden uses: anything else
 * fails the type check), refuses at run time what SST's types refuse, and builds the real
 * @pulumi/aws resources SST builds (platform/src/components/aws: function.ts, workflow.ts, cron-v2.ts,
 * dynamo.ts, bucket.ts, sns-topic.ts), so that the resource graph is tested under Pulumi's mocks.
 * What it leaves out: bundling, SST's link data in the environment, dev mode.
 */
import { existsSync } from "node:fs";
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";
import { assumeRolePolicy, Component, policyDocument, toDays, toSeconds } from "./component.ts";

type Input<T> = pulumi.Input<T>;
type DurationMinutes = `${number} ${"second" | "seconds" | "minute" | "minutes"}`;
type Duration = `${number} ${"second" | "seconds" | "minute" | "minutes" | "hour" | "hours" | "day" | "days"}`;
type DurationDays = `${number} ${"day" | "days"}`;

export interface FunctionPermissionArgs {
  actions: string[];
  resources: Input<Input<string>[]>;
  /** As SST passes them to getPolicyDocument: each `{ test, variable, values }` becomes Condition[test][variable]. */
  conditions?: Input<Input<{ test: Input<string>; variable: Input<string>; values: Input<Input<string>[]> }>[]>;
}

/** SST's log retention choices (its logging.ts RETENTION). */
export type LogRetention =
  | "1 day" | "3 days" | "5 days" | "1 week" | "2 weeks" | "1 month" | "2 months" | "3 months" | "4 months" | "5 months" | "6 months"
  | "1 year" | "13 months" | "18 months" | "2 years" | "3 years" | "5 years" | "6 years" | "7 years" | "8 years" | "9 years" | "10 years" | "forever";

export interface FunctionArgs {
  handler: Input<string>;
  runtime?: Input<"nodejs20.x" | "nodejs22.x" | "nodejs24.x">;
  timeout?: Input<DurationMinutes>;
  environment?: Input<Record<string, Input<string>>>;
  permissions?: Input<FunctionPermissionArgs[]>;
  link?: Input<unknown[]>;
  url?: Input<boolean | { authorization?: Input<"none" | "iam">; cors?: Input<false> }>;
  copyFiles?: Input<{ from: Input<string>; to?: Input<string> }[]>;
  /** Lambda's retries of a failed asynchronous invocation, 0 to 2 (AWS's default: 2). */
  retries?: Input<number>;
  versioning?: Input<boolean>;
  /** `reserved` becomes the function's reservedConcurrentExecutions, as in SST. */
  concurrency?: Input<{ reserved?: Input<number> }>;
  durable?: boolean | { timeout?: Input<Duration>; retention?: Input<DurationDays> };
  /**
   * SST's: how long CloudWatch keeps the function's log group (its RETENTION's names; default "1 month"), and
   * the format Lambda writes (default "text", "json" for a durable function, which refuses any other).
   */
  logging?: Input<false | { retention?: Input<LogRetention>; format?: Input<"text" | "json"> }>;
  /** The function's name (SST's physicalName when absent). */
  name?: Input<string>;
  /** As SST's: a function applied to the arguments of the role it makes. */
  transform?: { role?: (args: aws.iam.RoleArgs) => void };
}

/** SST's WorkflowArgs: FunctionArgs less what a durable function manages itself, plus its own timeouts; `transform.function` is its function's. */
export interface WorkflowArgs extends Omit<FunctionArgs, "durable" | "retries" | "runtime" | "timeout" | "url" | "versioning" | "transform"> {
  runtime?: Input<"nodejs22.x" | "nodejs24.x">;
  retention?: Input<DurationDays>;
  timeout?: Input<{ execution?: Input<Duration>; invocation?: Input<DurationMinutes> }>;
  transform?: { function?: FunctionArgs["transform"] };
}

export interface CronV2Args {
  function: Input<string | Function | Workflow | FunctionArgs>;
  schedule: Input<`rate(${string})` | `cron(${string})` | `at(${string})`>;
  event?: Input<unknown>;
  enabled?: Input<boolean>;
}

export interface DynamoArgs {
  fields: Input<Record<string, "string" | "number" | "binary">>;
  primaryIndex: Input<{ hashKey: Input<string> }>;
  ttl?: Input<string>;
}

export interface BucketArgs {
  lifecycle?: Input<Input<{ id?: Input<string>; prefix?: Input<string>; enabled?: Input<boolean>; expiresIn?: Input<DurationDays> }>[]>;
}

export type SnsTopicArgs = Record<string, never>;

/** Every top-level argument SST 4.17 declares, per component: what the run-time check lets through. */
const FUNCTION_KEYS = [
  "live", "dev", "retries", "name", "description", "runtime", "bundle", "handler", "timeout", "memory", "storage", "environment",
  "permissions", "policies", "link", "streaming", "injections", "logging", "architecture", "role", "url", "nodejs", "python",
  "copyFiles", "concurrency", "versioning", "layers", "volume", "tags", "vpc", "hook", "durable", "transform",
] as const;
const WORKFLOW_OMITS = ["concurrency", "durable", "injections", "live", "logging", "retries", "runtime", "streaming", "timeout", "transform", "url", "versioning"];
const WORKFLOW_KEYS = [...FUNCTION_KEYS.filter((k) => !WORKFLOW_OMITS.includes(k)), "runtime", "retention", "timeout", "logging", "transform"];
const CRON_KEYS = ["job", "function", "task", "event", "schedule", "timezone", "enabled", "retries", "dlq", "transform"];
const DYNAMO_KEYS = ["fields", "primaryIndex", "globalIndexes", "localIndexes", "stream", "ttl", "deletionProtection", "transform"];
const BUCKET_KEYS = ["public", "access", "policy", "enforceHttps", "cors", "lifecycle", "versioning", "transform"];
const SNS_TOPIC_KEYS = ["fifo", "transform"];

export class Function extends Component {
  readonly name: pulumi.Output<string>;
  readonly arn: pulumi.Output<string>;
  readonly url: pulumi.Output<string | undefined>;
  /** What a schedule or a link invokes: the published version's ARN where there is one (versioning, durable). */
  readonly targetArn: pulumi.Output<string>;
  readonly qualifier: pulumi.Output<string | undefined>;
  private readonly role: aws.iam.Role;
  private readonly fn: aws.lambda.Function;
  private readonly logGroup: pulumi.Output<aws.cloudwatch.LogGroup | undefined>;

  constructor(name: string, args: FunctionArgs, opts?: pulumi.ComponentResourceOptions) {
    super("Function", name, args, FUNCTION_KEYS, opts);
    const parent = this;
    // SST's build fails on a handler or a file to copy that is not there; so does this.
    const handler = pulumi.output(args.handler).apply((h) => {
      const file = h.slice(0, h.lastIndexOf("."));
      if (![".ts", ".js", ".mjs"].some((ext) => existsSync(`${file}${ext}`))) throw new Error(`Function "${name}": no file for handler "${h}"`);
      return h;
    });
    pulumi.output(args.copyFiles ?? []).apply((files) => {
      for (const { from } of files) if (!existsSync(from)) throw new Error(`Function "${name}": copyFiles: "${from}" does not exist`);
    });
    const durable = args.durable === true ? {} : args.durable || undefined;
    const links = pulumi.output(args.link ?? []).apply((list) =>
      (list as unknown[]).map((linked) => {
        if (!(linked instanceof Function || linked instanceof Workflow)) throw new Error(`Function "${name}": cannot link ${String(linked)}`);
        return { actions: ["lambda:InvokeFunction"], resources: [linked.arn] };
      }),
    );
    const statements = pulumi.all([args.permissions ?? [], links]).apply(([own, linked]) => [...own, ...linked]);
    const roleArgs: aws.iam.RoleArgs = {
      assumeRolePolicy: assumeRolePolicy("lambda.amazonaws.com"),
      inlinePolicies: [{ name: "inline", policy: policyDocument(statements) }],
      managedPolicyArns: [
        "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
        ...(durable ? ["arn:aws:iam::aws:policy/service-role/AWSLambdaBasicDurableExecutionRolePolicy"] : []),
      ],
    };
    args.transform?.role?.(roleArgs);
    const role = new aws.iam.Role(`${name}Role`, roleArgs, { parent });
    // SST's createLogGroup: the group the function logs into (its loggingConfig), named by the function's name or else
    // `physicalName(64, "<name>Function")`: <app>-<stage>-<name>Function (cut to 55 characters, not modelled here) and 8
    // random characters, fixed here; SST keeps a group's first name (ignoreChanges), so a deploy never renames it.
    const logGroup = pulumi.output(args.logging).apply((logging) =>
      logging === false
        ? undefined
        : new aws.cloudwatch.LogGroup(`${name}LogGroup`, { name: pulumi.interpolate`/aws/lambda/${args.name ?? `${pulumi.getProject()}-${pulumi.getStack()}-${name}Function-kmnorstu`}` }, { parent }),
    );
    // SST's normalizeLogging: a durable function logs JSON, and refuses another format.
    const logFormat = pulumi.output(args.logging).apply((logging) => {
      const format = (logging || undefined)?.format;
      if (durable && format !== undefined && format !== "json") throw new Error(`Function "${name}": Durable functions require "logging.format" to be set to "json"`);
      return (format ?? (durable ? "json" : "text")) === "json" ? "JSON" : "Text";
    });
    const publish = pulumi.output(args.versioning).apply((v) => v ?? Boolean(durable));
    const fn = new aws.lambda.Function(
      `${name}Function`,
      {
        role: role.arn,
        ...(args.name === undefined ? {} : { name: args.name }),
        handler,
        runtime: args.runtime ?? "nodejs20.x",
        timeout: pulumi.output(args.timeout ?? "20 seconds").apply(toSeconds),
        environment: { variables: args.environment ?? {} },
        // Unset without a group, as SST leaves it.
        loggingConfig: pulumi.all([logGroup, logFormat]).apply(([group, format]) => group && { logFormat: format, logGroup: group.name }) as pulumi.Output<aws.types.input.lambda.FunctionLoggingConfig>,
        packageType: "Zip",
        s3Bucket: "sst-asset",
        s3Key: `${name}.zip`,
        publish,
        // Unset without a reservation, as SST leaves it (the provider's "none").
        reservedConcurrentExecutions: pulumi.output(args.concurrency).apply((c) => c?.reserved) as pulumi.Output<number>,
        durableConfig: durable && {
          executionTimeout: pulumi.output(durable.timeout ?? "14 days").apply(toSeconds),
          retentionPeriod: pulumi.output(durable.retention ?? "30 days").apply(toDays),
        },
      },
      { parent },
    );
    if (args.retries !== undefined) new aws.lambda.FunctionEventInvokeConfig(`${name}EventInvokeConfig`, { functionName: fn.name, maximumRetryAttempts: args.retries }, { parent });
    this.url = pulumi.output(args.url).apply((url): pulumi.Output<string | undefined> => {
      if (!url) return pulumi.output<string | undefined>(undefined);
      const authorization = url === true ? "none" : (url.authorization ?? "none");
      // SST's default CORS, unless `cors: false`: every header, method and origin.
      const cors = url !== true && url.cors === false ? undefined : { allowHeaders: ["*"], allowMethods: ["*"], allowOrigins: ["*"] };
      const fnUrl = new aws.lambda.FunctionUrl(`${name}Url`, { functionName: fn.name, authorizationType: authorization === "iam" ? "AWS_IAM" : "NONE", ...(cors && { cors }) }, { parent });
      // Two grants, as SST's createUrl makes them: the URL's, and Lambda's newer requirement for a public URL, Invoke only through it.
      if (authorization === "none") {
        new aws.lambda.Permission(`${name}PublicFunctionUrlAccess`, { action: "lambda:InvokeFunctionUrl", function: fn.name, principal: "*", functionUrlAuthType: "NONE" }, { parent });
        new aws.lambda.Permission(`${name}InvokeFunction`, { action: "lambda:InvokeFunction", function: fn.name, principal: "*", invokedViaFunctionUrl: true }, { parent });
      }
      return fnUrl.functionUrl;
    });
    this.role = role;
    this.fn = fn;
    this.logGroup = logGroup;
    this.name = fn.name;
    this.arn = fn.arn;
    this.targetArn = pulumi.all([publish, fn.qualifiedArn, fn.arn]).apply(([published, qualified, arn]) => (published ? qualified : arn));
    this.qualifier = pulumi.all([publish, fn.version]).apply(([published, version]) => (published ? version : undefined));
  }

  /** SST's: the role it made for the function (SST makes none where `role` is given; Warden gives none), the function and its log group. */
  get nodes() {
    return { role: this.role, function: this.fn, logGroup: this.logGroup };
  }
}

export class Workflow extends Component {
  readonly name: pulumi.Output<string>;
  readonly arn: pulumi.Output<string>;
  readonly qualifier: pulumi.Output<string | undefined>;
  /** @internal as in SST: what CronV2 targets. */
  readonly targetArn: pulumi.Output<string>;
  private readonly fn: Function;

  constructor(name: string, args: WorkflowArgs, opts?: pulumi.ComponentResourceOptions) {
    super("Workflow", name, args, WORKFLOW_KEYS, opts);
    const { timeout, retention, transform, logging, ...rest } = args;
    const timeouts = pulumi.output(timeout);
    const fn = new Function(
      `${name}Handler`,
      {
        ...rest,
        // SST's Workflow normalizeLogging: logging given is JSON, whatever format it names.
        ...(logging === undefined ? {} : { logging: pulumi.output(logging).apply((l) => (l === false ? false : { ...l, format: "json" as const })) }),
        ...(transform?.function ? { transform: transform.function } : {}),
        // A deploy must not change the code of executions in flight: each runs on its published version.
        versioning: true,
        timeout: timeouts.apply((t) => t?.invocation ?? "5 minutes"),
        durable: { timeout: timeouts.apply((t) => t?.execution ?? "14 days"), ...(retention ? { retention } : {}) },
      },
      { parent: this },
    );
    this.name = fn.name;
    this.arn = fn.arn;
    this.qualifier = fn.qualifier;
    this.targetArn = fn.targetArn;
    this.fn = fn;
  }

  /** SST's: the Function component behind the workflow. */
  get nodes() {
    return { function: this.fn };
  }
}

export class CronV2 extends Component {
  private readonly fn: pulumi.Output<Function | undefined>;

  constructor(name: string, args: CronV2Args, opts?: pulumi.ComponentResourceOptions) {
    super("CronV2", name, args, CRON_KEYS, opts);
    const parent = this;
    // An ARN as given; else the function (a Workflow's is its own), made here from its arguments as SST's functionBuilder does.
    const made = pulumi.output(args.function as Input<string | FunctionArgs>).apply((fn: string | FunctionArgs | Function | Workflow) => {
      if (typeof fn === "string" || fn instanceof Function) return fn;
      if (fn instanceof Workflow) return fn.nodes.function;
      return new Function(`${name}Handler`, fn, { parent });
    });
    this.fn = made.apply((fn) => (typeof fn === "string" ? undefined : fn));
    const target = made.apply((fn) => (typeof fn === "string" ? pulumi.output(fn) : fn.targetArn));
    const role = new aws.iam.Role(
      `${name}Role`,
      { assumeRolePolicy: assumeRolePolicy("scheduler.amazonaws.com"), inlinePolicies: [{ name: "inline", policy: policyDocument([{ actions: ["lambda:InvokeFunction"], resources: [target] }]) }] },
      { parent },
    );
    new aws.scheduler.Schedule(
      `${name}Schedule`,
      {
        scheduleExpression: args.schedule,
        flexibleTimeWindow: { mode: "OFF" },
        state: pulumi.output(args.enabled ?? true).apply((on) => (on ? "ENABLED" : "DISABLED")),
        target: { arn: target, roleArn: role.arn, input: pulumi.output(args.event ?? {}).apply((e) => JSON.stringify(e)), retryPolicy: { maximumRetryAttempts: 0 } },
      },
      { parent },
    );
  }

  /** SST's: the function the schedule invokes (SST throws where it was given an ARN). */
  get nodes() {
    return {
      function: this.fn.apply((fn) => {
        if (!fn) throw new Error("the cron job has no function of its own");
        return fn;
      }),
    };
  }
}

export class Dynamo extends Component {
  readonly name: pulumi.Output<string>;
  readonly arn: pulumi.Output<string>;

  constructor(name: string, args: DynamoArgs, opts?: pulumi.ComponentResourceOptions) {
    super("Dynamo", name, args, DYNAMO_KEYS, opts);
    const index = pulumi.output(args.primaryIndex);
    const table = new aws.dynamodb.Table(
      `${name}Table`,
      {
        attributes: pulumi.output(args.fields).apply((fields) => Object.entries(fields).map(([field, type]) => ({ name: field, type: type.charAt(0).toUpperCase() }))),
        billingMode: "PAY_PER_REQUEST",
        hashKey: index.hashKey,
        ttl: args.ttl === undefined ? undefined : { attributeName: args.ttl, enabled: true },
      },
      { parent: this },
    );
    this.name = table.name;
    this.arn = table.arn;
  }
}

export class Bucket extends Component {
  readonly name: pulumi.Output<string>;
  readonly arn: pulumi.Output<string>;

  constructor(name: string, args: BucketArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    super("Bucket", name, args, BUCKET_KEYS, opts);
    const bucket = new aws.s3.Bucket(`${name}Bucket`, { forceDestroy: true }, { parent: this });
    if (args.lifecycle) {
      const rules = pulumi.output(args.lifecycle).apply((list) =>
        list.map((rule, i) => ({
          id: rule.id ?? `${name}Rule${i}`,
          status: rule.enabled === false ? "Disabled" : "Enabled",
          filter: { prefix: rule.prefix ?? "" },
          expiration: rule.expiresIn ? { days: toDays(rule.expiresIn) } : undefined,
        })),
      );
      new aws.s3.BucketLifecycleConfiguration(`${name}Lifecycle`, { bucket: bucket.bucket, rules }, { parent: this });
    }
    this.name = bucket.bucket;
    this.arn = bucket.arn;
  }
}

export class SnsTopic extends Component {
  readonly name: pulumi.Output<string>;
  readonly arn: pulumi.Output<string>;

  constructor(name: string, args: SnsTopicArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    super("SnsTopic", name, args, SNS_TOPIC_KEYS, opts);
    const topic = new aws.sns.Topic(`${name}Topic`, {}, { parent: this });
    this.name = topic.name;
    this.arn = topic.arn;
  }
}
