/// <reference path="./sst-globals.d.ts" />
/**
 * Warden on AWS. Settings come from the environment of `sst deploy --stage <stage>`:
 *
 *   WARDEN_SECRET_ARN          required: the Secrets Manager secret holding
 *                              {"gitlabToken", "n8nApiKey", "slackSigningSecret"}, each only if used
 *   GITLAB_URL, N8N_URL        scheme and host (and path prefix) of each service; one or both. Without
 *                              GITLAB_URL there is no Enforce function, without N8N_URL no Workflows
 *   WARDEN_SECRET_KMS_KEY_ARN  the customer-managed KMS key the secret is encrypted with, if any
 *   WARDEN_POLICY_FILE         the policy to ship in every bundle (default warden.yaml)
 *   WARDEN_ENFORCE_SCHEDULE    default rate(1 day); "off" disables the schedule (the function stays)
 *   WARDEN_WORKFLOWS_SCHEDULE  default rate(1 hour); "off" likewise
 *   WARDEN_CHATOPS             "on" (default) or "off": no Slack endpoint and no worker
 *   WARDEN_REPORT_ONLY         "true" or "false"; true: nothing is ever applied on this stage
 *                              (default: true on every stage but production)
 *
 * The schedules pass the fixed event { "source": "schedule" }: that is how the enforce and workflows
 * functions tell a scheduled run (which applies) from a person's console run (a dry run unless it
 * says "dryRun": false). See functions/lib/scheduled.ts.
 */
import { NODE_OPTIONS } from "./lib/config/node-options.ts";

export default $config({
  app(input) {
    const production = input.stage === "production";
    return { name: "warden", home: "aws", removal: production ? "retain" : "remove", protect: production };
  },
  async run() {
    const settings = deploySettings($app.stage);
    const environment = {
      WARDEN_SECRET_ARN: settings.secretArn,
      ...(settings.gitlabUrl ? { GITLAB_URL: settings.gitlabUrl } : {}),
      ...(settings.n8nUrl ? { N8N_URL: settings.n8nUrl } : {}),
      WARDEN_REPORT_ONLY: String(settings.reportOnly),
      NODE_OPTIONS,
    };
    // The one secret, read-only; each function reads it itself (no SST link: it is not an SST resource).
    // A secret under a customer-managed key is decrypted with the reader's own kms:Decrypt permission.
    const permissions = [
      { actions: ["secretsmanager:GetSecretValue"], resources: [settings.secretArn] },
      ...(settings.secretKmsKeyArn ? [{ actions: ["kms:Decrypt"], resources: [settings.secretKmsKeyArn] }] : []),
    ];
    // Next to the handlers at the bundle root, where functions/lib/config.ts looks by default.
    const copyFiles = [{ from: settings.policyFile, to: "warden.yaml" }];
    const lambda = (handler: string) => ({ handler, runtime: "nodejs24.x" as const, environment, permissions, copyFiles });
    // Jobs are invoked asynchronously (by a schedule, or chat-ops' invoke of the worker), and Lambda
    // retries a failed asynchronous invocation twice by default. A job that failed is not run again:
    // the next schedule re-plans anyway, and a retried worker could start a second pipeline.
    const job = (handler: string) => ({ ...lambda(handler), timeout: "15 minutes" as const, retries: 0 });
    // "off" keeps the function, for console runs, and disables its schedule.
    const cron = (name: string, when: Schedule, handler: string) =>
      new sst.aws.CronV2(name, { schedule: when.expression, enabled: when.enabled, event: { source: "schedule" }, function: job(handler) });

    const outputs: Record<string, unknown> = {};
    if (settings.chatops) {
      const worker = new sst.aws.Function("Worker", job("functions/worker.handler"));
      const chatops = new sst.aws.Function("Chatops", {
        ...lambda("functions/chatops.handler"),
        timeout: "10 seconds",
        environment: { ...environment, WARDEN_WORKER_FUNCTION: worker.name },
        // Slack's request signature is the authentication; the function verifies it before anything else.
        url: { authorization: "none" },
        // Grants lambda:InvokeFunction on the worker.
        link: [worker],
      });
      outputs["chatopsUrl"] = chatops.url;
    }
    if (settings.gitlabUrl) cron("Enforce", settings.enforceSchedule, "functions/enforce.handler");
    if (settings.n8nUrl) cron("Workflows", settings.workflowsSchedule, "functions/workflows.handler");
    return outputs;
  },
});

function deploySettings(stage: string) {
  const env = process.env;
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} must be set to deploy Warden (stage ${stage})`);
    return value;
  };
  const gitlabUrl = env["GITLAB_URL"] || undefined;
  const n8nUrl = env["N8N_URL"] || undefined;
  if (!gitlabUrl && !n8nUrl) throw new Error(`GITLAB_URL, N8N_URL or both must be set to deploy Warden (stage ${stage})`);
  return {
    secretArn: required("WARDEN_SECRET_ARN"),
    secretKmsKeyArn: kmsKeyArn(env["WARDEN_SECRET_KMS_KEY_ARN"]),
    gitlabUrl,
    n8nUrl,
    policyFile: env["WARDEN_POLICY_FILE"] ?? "warden.yaml",
    enforceSchedule: schedule("WARDEN_ENFORCE_SCHEDULE", "rate(1 day)"),
    workflowsSchedule: schedule("WARDEN_WORKFLOWS_SCHEDULE", "rate(1 hour)"),
    chatops: oneOf("WARDEN_CHATOPS", ["on", "off"], "on") === "on",
    reportOnly: oneOf("WARDEN_REPORT_ONLY", ["true", "false"], String(stage !== "production")) === "true",
  };
}

/** A setting with a fixed set of values: anything else ("1", "yes") fails the deploy rather than meaning one of them. */
function oneOf<T extends string>(name: string, values: readonly T[], fallback: string): T {
  const value = process.env[name] || fallback;
  if (!(values as readonly string[]).includes(value)) throw new Error(`${name} must be ${values.map((v) => `"${v}"`).join(" or ")}, not "${value}"`);
  return value as T;
}

interface Schedule {
  expression: `rate(${string})` | `cron(${string})`;
  enabled: boolean;
}

/**
 * The schedule from `name`, or `fallback`; "off" disables it. Refuses at deploy time what EventBridge
 * Scheduler would refuse later: rate(N unit) or a 6-field cron().
 */
function schedule(name: string, fallback: `rate(${string})`): Schedule {
  const expression = process.env[name] || fallback;
  // A disabled schedule still needs a valid expression.
  if (expression === "off") return { expression: fallback, enabled: false };
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate && Number(rate[1]) > 0 && (rate[1] === "1") === !rate[2]!.endsWith("s")) return { expression: expression as `rate(${string})`, enabled: true };
  if (/^cron\(\S+( \S+){5}\)$/.test(expression)) return { expression: expression as `cron(${string})`, enabled: true };
  throw new Error(`${name}: "${expression}" is not a schedule expression (rate(1 day), rate(6 hours), cron(0 3 * * ? *)) or "off"`);
}

/** IAM grants kms:Decrypt by the key's ARN: an alias, or an alias ARN, in a policy's Resource grants nothing. */
function kmsKeyArn(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (/^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(value)) return value;
  throw new Error(`WARDEN_SECRET_KMS_KEY_ARN: "${value}" is not a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>; an alias will not do)`);
}
