/// <reference path="./sst-globals.d.ts" />
/**
 * Warden on AWS. Settings come from the environment of `sst deploy --stage <stage>`:
 *
 *   WARDEN_SECRET_ARN          required: the Secrets Manager secret holding
 *                              {"gitlabToken", "n8nApiKey", "slackSigningSecret"}
 *   GITLAB_URL, N8N_URL        required: scheme and host (and path prefix) of each service
 *   WARDEN_POLICY_FILE         the policy to ship in every bundle (default warden.yaml)
 *   WARDEN_ENFORCE_SCHEDULE    default rate(1 day)
 *   WARDEN_WORKFLOWS_SCHEDULE  default rate(1 hour)
 *   WARDEN_REPORT_ONLY         "true": nothing is ever applied on this stage (default: true on
 *                              every stage but production)
 *
 * The schedules pass the fixed event { "source": "schedule" }: that is how the enforce and workflows
 * functions tell a scheduled run (which applies) from a person's console run (a dry run unless it
 * says "dryRun": false). See functions/lib/scheduled.ts.
 */
export default $config({
  app(input) {
    const production = input.stage === "production";
    return { name: "warden", home: "aws", removal: production ? "retain" : "remove", protect: production };
  },
  async run() {
    const settings = deploySettings($app.stage);
    const environment = {
      WARDEN_SECRET_ARN: settings.secretArn,
      GITLAB_URL: settings.gitlabUrl,
      N8N_URL: settings.n8nUrl,
      WARDEN_REPORT_ONLY: String(settings.reportOnly),
    };
    // The one secret, read-only; each function reads it itself (no SST link: it is not an SST resource).
    const permissions = [{ actions: ["secretsmanager:GetSecretValue"], resources: [settings.secretArn] }];
    // Next to the handlers at the bundle root, where functions/lib/config.ts looks by default.
    const copyFiles = [{ from: settings.policyFile, to: "warden.yaml" }];
    const job = (handler: string) => ({ handler, runtime: "nodejs24.x" as const, timeout: "15 minutes" as const, environment, permissions, copyFiles });

    const worker = new sst.aws.Function("Worker", job("functions/worker.handler"));
    const chatops = new sst.aws.Function("Chatops", {
      ...job("functions/chatops.handler"),
      timeout: "10 seconds",
      environment: { ...environment, WARDEN_WORKER_FUNCTION: worker.name },
      // Slack's request signature is the authentication; the function verifies it before anything else.
      url: { authorization: "none" },
      // Grants lambda:InvokeFunction on the worker.
      link: [worker],
    });
    new sst.aws.CronV2("Enforce", { schedule: settings.enforceSchedule, event: { source: "schedule" }, function: job("functions/enforce.handler") });
    new sst.aws.CronV2("Workflows", { schedule: settings.workflowsSchedule, event: { source: "schedule" }, function: job("functions/workflows.handler") });

    return { chatopsUrl: chatops.url };
  },
});

function deploySettings(stage: string) {
  const env = process.env;
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} must be set to deploy Warden (stage ${stage})`);
    return value;
  };
  return {
    secretArn: required("WARDEN_SECRET_ARN"),
    gitlabUrl: required("GITLAB_URL"),
    n8nUrl: required("N8N_URL"),
    policyFile: env["WARDEN_POLICY_FILE"] ?? "warden.yaml",
    enforceSchedule: schedule("WARDEN_ENFORCE_SCHEDULE", env["WARDEN_ENFORCE_SCHEDULE"] ?? "rate(1 day)"),
    workflowsSchedule: schedule("WARDEN_WORKFLOWS_SCHEDULE", env["WARDEN_WORKFLOWS_SCHEDULE"] ?? "rate(1 hour)"),
    reportOnly: (env["WARDEN_REPORT_ONLY"] ?? String(stage !== "production")) === "true",
  };
}

/** Refuses at deploy time what EventBridge Scheduler would refuse later: rate(N unit) or a 6-field cron(). */
function schedule(name: string, expression: string): `rate(${string})` | `cron(${string})` {
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate && Number(rate[1]) > 0 && (rate[1] === "1") === !rate[2]!.endsWith("s")) return expression as `rate(${string})`;
  if (/^cron\(\S+( \S+){5}\)$/.test(expression)) return expression as `cron(${string})`;
  throw new Error(`${name}: "${expression}" is not a schedule expression (rate(1 day), rate(6 hours), cron(0 3 * * ? *))`);
}
