/// <reference path="./sst-globals.d.ts" />
/**
 * Warden on AWS. Settings come from the environment of `sst deploy --stage <stage>`:
 *
 *   WARDEN_SECRET_ARN          required (but with N8N_URL alone and WARDEN_N8N_SECRET_ARN): the jobs' Secrets Manager
 *                              secret, read only by the functions that run jobs: {"gitlabToken", "n8nApiKey",
 *                              "slackWebhookUrl"}, each only if used
 *   WARDEN_N8N_SECRET_ARN      with N8N_URL, recommended: n8n's own secret, {"n8nApiKey", "slackWebhookUrl"},
 *                              read by Workflows and the chat Worker alone; the jobs' secret then holds no
 *                              n8nApiKey, and Workflows no GitLab token (unless the policy is read from GitLab)
 *   WARDEN_ENDPOINT_SECRET_ARN the chat-ops secret, another one, read only by the public Chatops
 *                              function: {"slackSigningSecret"}; required with chat-ops
 *   WARDEN_EVENTS_SECRET_ARN   the events' secret, a third one, read only by the public Events function:
 *                              {"gitlabStreamingToken", "gitlabSystemHookToken"}; required with events.
 *                              Each secret by its full ARN (…:secret:<name>-<6 characters>): a pattern is
 *                              refused, and so is one secret named for two of them
 *   WARDEN_ENDPOINT_CONCURRENCY  reserved concurrency of each public function (default 10): what a
 *                              flood of requests can take of the account, and the most it can run at once
 *   WARDEN_WORKER_CONCURRENCY  reserved concurrency of each worker, Worker (chat-ops) and EventsWorker
 *                              (default 5): the most runs each has going at once; the rest wait in its queue
 *   GITLAB_URL, N8N_URL        scheme and host (and path prefix) of each service; one or both. Without
 *                              GITLAB_URL there is no Enforce workflow, without N8N_URL no Workflows
 *   WARDEN_ALLOW_HTTP          "1": the functions may use a plain http:// GITLAB_URL or N8N_URL of
 *                              another host (the token then travels unencrypted); otherwise refused
 *   WARDEN_SECRET_KMS_KEY_ARN  the customer-managed KMS key the secrets are encrypted with, if any
 *   WARDEN_POLICY_FILE         the policy to ship in every bundle (default warden.yaml)
 *   WARDEN_POLICY_PROJECT      instead of a file: the GitLab project whose repository holds the policy,
 *                              read by every function at each run (docs/policy.md): its id
 *                              (recommended: pinned for good) or group/project
 *   WARDEN_POLICY_PATH, WARDEN_POLICY_REF   its path there (default warden.yaml) and branch, tag or
 *                              commit (default: the project's default branch); a branch or tag must be
 *                              protected unless WARDEN_POLICY_ALLOW_UNPROTECTED_REF=1
 *   WARDEN_ENFORCE_SCHEDULE    default rate(1 day); "off" disables the schedule (the function stays)
 *   WARDEN_WORKFLOWS_SCHEDULE  default rate(1 hour); "off" likewise
 *   WARDEN_WATCH_SCHEDULE      the Watch function's poll of GitLab's audit events (with GITLAB_URL;
 *                              Premium and up): default rate(1 minute); "off" on GitLab Free
 *   WARDEN_CHATOPS             "on" (default) or "off": no Slack endpoint and no Worker
 *   WARDEN_EVENTS              "on" or "off" (default): the Events endpoint for GitLab's audit event
 *                              streaming and system hooks (docs/aws.md), with its EventsWorker; needs GITLAB_URL
 *   WARDEN_EVENTS_SILENCE_HOURS  with events on: hours without any delivery from GitLab after which
 *                              each sweep warns and the EventsSilent alarm fires (default 24, 1 to 168)
 *   WARDEN_REPORT_ONLY         "true" or "false"; true: nothing is ever applied on this stage
 *                              (default: true on every stage but production)
 *   WARDEN_ALARM_EMAIL         an address subscribed to the alarm topic (it must confirm the
 *                              subscription); unset: subscribe to the topic yourself
 *   WARDEN_RUN_HISTORY_DAYS    days the report of a run that changed something is kept for restore
 *                              (default 90)
 *   WARDEN_ENFORCE_EXECUTION_HOURS   hours one durable Enforce execution may take, across all its
 *                              invocations, before Lambda ends it (default 24, at most 8784: 366 days)
 *   WARDEN_EXECUTION_RETENTION_DAYS  days Lambda keeps a finished execution's result and history
 *                              (default 14, 1 to 90)
 *   WARDEN_DEV_SECRETS         "1": let `sst dev` run on this (unprotected) stage, whose roles any principal in
 *                              the account allowed sts:AssumeRole may then assume: its secrets must be its own,
 *                              holding a test instance's token
 *
 * Enforce is a Lambda durable function (SST's Workflow): a run may outgrow one 15-minute invocation, so
 * it goes on in checkpointed steps across invocations, up to its execution timeout.
 *
 * Operations: every stage has a run-history bucket (reports of runs that changed something, expired after
 * WARDEN_RUN_HISTORY_DAYS), an SNS topic with CloudWatch alarms on the runs' metrics (a run failed,
 * its guard tripped, actions failed, and a heartbeat: no successful scheduled run in two schedule
 * periods; and on Lambda's own metrics, a schedule that did not invoke its function), and, with chat-ops, Enforce or Workflows, a DynamoDB table of claims: chat-ops keeps each command to
 * one run there, a durable Enforce run holds its lease there, so two executions never run at once, and Workflows
 * remembers there the changes n8n refused its last run.
 *
 * The schedules pass the fixed event { "source": "schedule" }: that is how the enforce and workflows
 * functions tell a scheduled run (which applies) from a person's console run (a dry run unless it
 * says "dryRun": false). See functions/shared/runs/scheduled.ts.
 */
export default $config({
  app(input) {
    // A stage that applies (production, or any deployed with WARDEN_REPORT_ONLY=false) removes real access:
    // its run history, which restore needs, is kept on removal, and `sst remove` is refused.
    const applies = input.stage === "production" || process.env["WARDEN_REPORT_ONLY"] === "false";
    return { name: "warden", home: "aws", removal: applies ? "retain" : "remove", protect: applies };
  },
  async run() {
    // SST refuses static imports at the top of this file: it evaluates app() from a bundle of it first.
    const { METRIC, METRICS_NAMESPACE, METRICS_SERVICE } = await import("./functions/shared/runs/metric-names.ts");
    const { NODE_OPTIONS } = await import("./lib/config/node-options.ts");
    const { existsSync } = await import("node:fs");
    // The bundles carry no package.json: reports name Warden's version from this (lib/jobs/version.ts).
    const { WARDEN_VERSION } = await import("./lib/jobs/version.ts");
    // `sst dev` deploys the stage with every function a bridge to the developer's machine, and each role
    // assumable by the account's root principal (any IAM principal allowed sts:AssumeRole would hold the
    // jobs' role and the GitLab token): never on a protected stage (`protect` alone stops only `sst remove`),
    // and on another only with secrets the deployer says are its own (devSecrets).
    if ($dev && $app.protect) throw new Error(`sst dev on the protected stage ${$app.stage} would put its functions on this machine, with roles the whole account may assume: run sst dev on a stage of your own (--stage)`);
    // The audit lines are only in the functions' log groups, which SST's "retain" does not keep (only buckets, tables
    // and the like): on a stage that applies, a deploy that drops a function (WARDEN_EVENTS left at its default off,
    // WARDEN_CHATOPS=off) would delete its group and the lines of every removal its runs made. SST's $transform of a
    // Pulumi resource is this stack transformation. Enforce's group is named for the function: after one such deploy,
    // one that brings Enforce back must first have the old group deleted or imported.
    if ($app.removal === "retain") {
      $util.runtime.registerStackTransformation((args) => {
        if (args.type !== "aws:cloudwatch/logGroup:LogGroup") return undefined;
        return { props: args.props, opts: { ...args.opts, retainOnDelete: args.opts.retainOnDelete ?? true } };
      });
    }
    const { cronProblem } = await import("./lib/config/cron-expression.ts");
    const settings = deploySettings($app.stage, cronProblem);
    if ($dev) devSecrets($app.stage, settings);
    // The functions refuse a bad address when they run; refused here, a credential in one never reaches every function's environment.
    const { checkServiceUrl, GITLAB, N8N } = await import("./lib/config/service-config.ts");
    const plainHttp = { allowed: settings.allowHttp, howToAllow: "deploy with WARDEN_ALLOW_HTTP=1" };
    if (settings.gitlabUrl) checkServiceUrl(GITLAB, { name: "GITLAB_URL", value: settings.gitlabUrl }, plainHttp);
    if (settings.n8nUrl) checkServiceUrl(N8N, { name: "N8N_URL", value: settings.n8nUrl }, plainHttp);
    const policyFile = settings.policyRepository ? undefined : (settings.policyFile ?? "warden.yaml");
    // SST copies the file from a path it joins to the project's root: an absolute one would name another.
    if (policyFile !== undefined && policyFile.startsWith("/")) {
      throw new Error(`WARDEN_POLICY_FILE: ${policyFile} is an absolute path: give the policy file's path relative to sst.config.ts (SST copies it from there)`);
    }
    if (policyFile !== undefined && !existsSync(policyFile)) {
      throw new Error(`WARDEN_POLICY_FILE: ${policyFile} does not exist (relative to sst.config.ts): set it to your policy file, or copy examples/warden.yaml to warden.yaml to start from the example`);
    }
    const environment = {
      WARDEN_REPORT_ONLY: String(settings.reportOnly),
      // Names the stage in Slack summaries, and is a dimension of every metric.
      WARDEN_STAGE: $app.stage,
      NODE_OPTIONS,
    };
    /** A function's own settings and permissions, on top of every function's. */
    type Condition = { test: string; variable: string; values: string[] };
    type Access = {
      environment?: Record<string, $util.Input<string>>;
      permissions?: { actions: string[]; resources: $util.Input<string>[]; conditions?: Condition[] }[];
      copyFiles?: { from: string; to: string }[];
    };
    /**
     * What a function's code reaches, given only to the functions whose code does: a service's address
     * (GITLAB_URL, N8N_URL), and the policy, shipped next to the handlers at the bundle root (where
     * functions/shared/config/policy.ts looks by default) or read from its repository at each run (then
     * from GitLab: GITLAB_URL too). The public Events function reaches none of them.
     */
    const reaches = (...what: ("gitlab" | "n8n" | "policy")[]): Access => {
      const policy = what.includes("policy");
      const gitlab = what.includes("gitlab") || (policy && settings.policyRepository !== undefined);
      const n8n = what.includes("n8n");
      return {
        environment: {
          ...(gitlab && settings.gitlabUrl ? { GITLAB_URL: settings.gitlabUrl } : {}),
          ...(n8n && settings.n8nUrl ? { N8N_URL: settings.n8nUrl } : {}),
          ...((gitlab || n8n) && settings.allowHttp ? { WARDEN_ALLOW_HTTP: "1" } : {}),
          ...(policy ? settings.policyRepository : {}),
        },
        ...(policy && policyFile !== undefined ? { copyFiles: [{ from: policyFile, to: "warden.yaml" }] } : {}),
      };
    };
    // A secret under a customer-managed key is decrypted with the reader's own kms:Decrypt permission: only as Secrets
    // Manager asks for it, for that one secret (its encryption context), so that no function, a public one least of all,
    // decrypts anything else under the key, nor another function's secret.
    const secretKeyAccess = (arn: string): NonNullable<Access["permissions"]> =>
      settings.secretKmsKeyArn
        ? [{ actions: ["kms:Decrypt"], resources: [settings.secretKmsKeyArn], conditions: [
            { test: "StringEquals", variable: "kms:ViaService", values: [`secretsmanager.${arn.split(":")[3]}.amazonaws.com`] },
            { test: "StringEquals", variable: "kms:EncryptionContext:SecretARN", values: [arn] },
          ] }]
        : [];
    // The secrets, each read-only and only by the functions that need it (no SST link: none is an SST
    // resource): the jobs' tokens act on GitLab and n8n, and code running in a public function must
    // never hold them; the endpoints' credentials only authenticate requests.
    const secretAccess = (variable: string, arn: string): Access => ({ environment: { [variable]: arn }, permissions: [{ actions: ["secretsmanager:GetSecretValue"], resources: [arn] }, ...secretKeyAccess(arn)] });
    // With an n8n secret, n8n's key is read only where n8n is reconciled, and the jobs' secret only where GitLab
    // is acted on or the policy read from it: Workflows holds no token that removes access. Every reader of the
    // jobs' secret is told, so that one still holding n8n's key is refused (functions/shared/config/secrets.ts).
    const n8nSecret = settings.n8nSecretArn ? secretAccess("WARDEN_N8N_SECRET_ARN", settings.n8nSecretArn) : undefined;
    const jobSecret = settings.secretArn === undefined ? undefined : secretAccess("WARDEN_SECRET_ARN", settings.secretArn);
    if (jobSecret && n8nSecret) Object.assign(jobSecret.environment!, { WARDEN_N8N_SECRET_SEPARATE: "1" });
    /** The secrets a function that runs `jobs` reads (deploySettings: the jobs' secret is there wherever one is read). */
    const secretsFor = (jobs: string[]): Access[] => {
      const gitlab = !n8nSecret || jobs.some((j) => j !== "workflows") || settings.policyRepository !== undefined;
      return [...(gitlab ? [jobSecret!] : []), ...(n8nSecret && jobs.includes("workflows") ? [n8nSecret] : [])];
    };
    const lambda = (handler: string, ...access: Access[]) => ({
      handler,
      runtime: "nodejs24.x" as const,
      environment: Object.assign({}, environment, ...access.map((a) => a.environment)),
      permissions: access.flatMap((a) => a.permissions ?? []),
      ...(access.some((a) => a.copyFiles) ? { copyFiles: access.flatMap((a) => a.copyFiles ?? []) } : {}),
      nodejs: { esbuild: { define: { __WARDEN_VERSION__: JSON.stringify(WARDEN_VERSION) } } },
      // The audit lines (remove-share, create-pipeline, chat-command) are only in the logs, and restore's
      // fallback where a report could not be stored: kept as long as the run history (SST's default is a month).
      logging: { retention: logRetention(settings.runHistoryDays) },
    });

    // Reports of applying runs, for restore (functions/shared/runs/run-history.ts): only under runs/, and only
    // for WARDEN_RUN_HISTORY_DAYS, after which S3 deletes them.
    const history = new sst.aws.Bucket("RunHistory", { lifecycle: [{ id: "expire-runs", prefix: "runs/", expiresIn: quantity(settings.runHistoryDays, "day") }] });
    /**
     * Each function writes only under runs/<job>/ of the jobs it runs, and only Enforce (whose restore
     * reads the enforce runs) reads and lists, and only runs/enforce/: a Workflows run cannot plant a
     * "latest" enforce report for restore to trust. `writes` are prefixes under runs/: a job's whole
     * (Enforce's, whose runs are the schedule's and the console's), or runs/<job>/<trigger>/ of a
     * function that runs by one trigger alone (runsBy), as lib/jobs/restore/run-history.ts's runKey lays
     * keys out: Watch, EventsWorker and the chat Worker cannot store a run as another trigger's (the watch's
     * or the stream's as a sweep `restore latest` chooses).
     */
    const historyAccess = (writes: string[], reads: string[] = []): Access => ({
      environment: { WARDEN_RUN_HISTORY_BUCKET: history.name },
      permissions: [
        { actions: ["s3:PutObject"], resources: writes.map((prefix) => $interpolate`${history.arn}/runs/${prefix}/*`) },
        ...(reads.length
          ? [
              { actions: ["s3:GetObject"], resources: reads.map((job) => $interpolate`${history.arn}/runs/${job}/*`) },
              // "latest" lists a job's runs: only under that job's prefix.
              { actions: ["s3:ListBucket"], resources: [history.arn], conditions: [{ test: "StringLike", variable: "s3:prefix", values: reads.map((job) => `runs/${job}/*`) }] },
            ]
          : []),
      ],
    });
    /** The run-history prefixes of a function whose runs all have one trigger (functions/shared/runs/triggers.ts's runLabels). */
    const runsBy = (trigger: "watch" | "event" | "chat", jobs: string[]) => jobs.map((job) => `${job}/${trigger}`);

    // Jobs are invoked asynchronously (by a schedule, or chat-ops' invoke of the worker), and Lambda
    // retries a failed asynchronous invocation twice by default. A job that failed is not run again:
    // the next schedule re-plans anyway, and a retried worker could start a second pipeline.
    const job = (handler: string, jobs: string[], ...access: Access[]) => ({ ...lambda(handler, ...secretsFor(jobs), ...access), timeout: "15 minutes" as const, retries: 0 });

    // Claims (DynamoDB deletes each some time after its expiresAt): chat-ops' one claim per signed
    // command and per worker event (functions/shared/state/claims.ts), and a durable Enforce run's lease. Created
    // by the first function that needs it. Each function may touch only the items whose key starts as
    // its own do (dynamodb:LeadingKeys): chat-ops cannot take the Enforce lease or move the Watch cursor.
    let claims: sst.aws.Dynamo | undefined;
    const claimsAccess = (keys: string[], ...actions: string[]): Access => {
      claims ??= new sst.aws.Dynamo("Claims", { fields: { id: "string" }, primaryIndex: { hashKey: "id" }, ttl: "expiresAt" });
      const conditions = [{ test: "ForAllValues:StringLike", variable: "dynamodb:LeadingKeys", values: keys }];
      return { environment: { WARDEN_CLAIMS_TABLE: claims.name }, permissions: [{ actions, resources: [claims.arn], conditions }] };
    };
    // The keys each function writes, by the module that makes them.
    const CLAIM_KEYS = {
      chatops: ["slack:*"], // functions/shared/slack/once.ts
      events: ["stream:*", "hook:*"], // functions/shared/events/delivery.ts
      worker: ["worker:*"], // functions/worker.ts
      enforce: ["lease:enforce"], // functions/shared/durable/job.ts
      // The sweep's record, and when GitLab last delivered to the Events function (it writes them, Enforce reads them):
      // functions/shared/state/event-coverage.ts.
      sweep: ["sweep:judged"],
      heard: ["heard:stream", "heard:system-hook"],
      // The lease (claimed, given back: functions/watch.ts), the cursor (read, written: functions/shared/state/watch-cursor.ts) and
      // its summaries told once (functions/shared/runs/told-once.ts).
      watch: ["watch:lease"],
      watchCursor: ["watch:cursor", "watch:summary:*"],
      budget: ["budget:stream:*"], // functions/shared/state/removal-budget.ts and event-request-budget.ts: the EventsWorker's, not the public Events function's
      // The removal budget alone (a policy's item: "budget:stream:" and its sha256, 64 hex digits), which the Watch's runs share
      // with the EventsWorker's; not the hours of event-request-budget.ts ("budget:stream:requests:<hour>"), the EventsWorker's alone.
      removalBudget: [`budget:stream:${"?".repeat(64)}`],
      // The changes n8n refused the last Workflows run for good, which Workflows reads before its next (its guard counts them not)
      // and writes after it: functions/shared/state/workflows-refusals.ts. A chat command's workflows run keeps none.
      workflows: ["workflows:refused"],
    };
    // What the last full Enforce run found matching nothing, and the removals GitLab refused it (functions/shared/state/last-sweep.ts):
    // Enforce writes it and reads it (its guard counts not those refusals), Watch and the EventsWorker (their targeted runs refuse
    // those rules too: functions/watch.ts, functions/shared/events/subject-run.ts) only read it. The chat Worker does not: a chat command's run is
    // untargeted, and reads no last sweep.
    const LAST_SWEEP = ["rules:last-sweep"];

    const outputs: Record<string, unknown> = { runHistoryBucket: history.name };
    // The workers run what the endpoints hand them: Worker the chat jobs of Chatops, EventsWorker the subjects
    // of GitLab's events (functions/worker.ts, each taking only its own kind: WARDEN_WORKER_TAKES). The
    // endpoints start them asynchronously (up to 100 runs a streamed delivery), so their own reserved
    // concurrency does not bound them: each worker's does. Lambda keeps what is over it in the function's
    // queue and runs it as runs end (for up to 6 hours), rather than a flood taking the account's
    // concurrency and the token's GitLab budget, which the sweep needs. A queue each: a flood of events
    // waits behind itself, not in front of a chat command (whose response_url Slack takes posts to for 30
    // minutes), and a burst of commands does not hold up the enforcement of events.
    // Its runs are its one trigger's: a chat command's "chat", a subject's "event".
    const reachesFor = (jobs: string[]) => reaches("policy", ...(jobs.some((j) => j !== "workflows") ? (["gitlab"] as const) : []), ...(jobs.includes("workflows") ? (["n8n"] as const) : []));
    // Each function writes its own log group alone (ownLogGroupOnly).
    const ownLogs = (make: (role: RoleTransform) => sst.aws.Function) => ownLogGroupOnly(make, (fn) => fn.nodes.logGroup);
    // The workers made, for their alarms below.
    const workers: { name: string; fn: sst.aws.Function }[] = [];
    const worker = (name: string, takes: "chat" | "subject", jobs: string[], ...access: Access[]) => {
      const fn = ownLogs((role) => new sst.aws.Function(name, {
        ...job("functions/worker.handler", jobs, reachesFor(jobs), historyAccess(runsBy(takes === "chat" ? "chat" : "event", jobs)), claimsAccess(CLAIM_KEYS.worker, "dynamodb:PutItem", "dynamodb:GetItem"), ...access, { environment: { WARDEN_WORKER_TAKES: takes } }),
        concurrency: { reserved: settings.workerConcurrency },
        transform: { role },
      }));
      workers.push({ name, fn });
      return fn;
    };
    // An endpoint that answers at once and hands the work to the worker (Slack gives 3 seconds, GitLab 8 and
    // never retries). The request's own credential (Slack's signature, GitLab's token) is the
    // authentication, checked by the function before anything else: no IAM auth on the URL. It reads the
    // endpoint's own secret alone, and its reserved concurrency caps what a flood of requests can run (and
    // take of the account's). Links the worker (lambda:InvokeFunction on it, nothing else).
    // The endpoints made, for their alarms below.
    const endpoints: { name: string; fn: sst.aws.Function }[] = [];
    const endpoint = (name: string, handler: string, secret: Access, claims: Access[], from: sst.aws.Function, reach: Access = {}) => {
      const fn = ownLogs((role) => new sst.aws.Function(name, {
        ...lambda(handler, reach, secret, ...claims, { environment: { WARDEN_WORKER_FUNCTION: from.name } }),
        timeout: "10 seconds",
        concurrency: { reserved: settings.endpointConcurrency },
        // No CORS: only Slack and GitLab call these, never a browser (SST's default would allow every origin).
        url: { authorization: "none", cors: false },
        link: [from],
        transform: { role },
      }));
      endpoints.push({ name, fn });
      return fn;
    };
    // A subject's run is an enforce run, targeted: it reads the last sweep. The chat jobs are the services'
    // the deployment has (a chat pipeline's report is kept too): enforce and pipeline with GITLAB_URL, workflows
    // with N8N_URL; without one, that job fails before any request (functions/shared/config/clients.ts).
    if (settings.events) {
      const eventsClaims = [claimsAccess(CLAIM_KEYS.events, "dynamodb:PutItem", "dynamodb:GetItem"), claimsAccess(CLAIM_KEYS.heard, "dynamodb:PutItem")];
      outputs["eventsUrl"] = endpoint("Events", "functions/events.handler", secretAccess("WARDEN_EVENTS_SECRET_ARN", settings.eventsSecretArn!), eventsClaims, worker("EventsWorker", "subject", ["enforce"], claimsAccess(LAST_SWEEP, "dynamodb:GetItem"), claimsAccess(CLAIM_KEYS.budget, "dynamodb:UpdateItem"))).url;
    }
    const chatJobs = [...(settings.gitlabUrl ? ["enforce", "pipeline"] : []), ...(settings.n8nUrl ? ["workflows"] : [])];
    if (settings.chatops) outputs["chatopsUrl"] = endpoint("Chatops", "functions/chatops.handler", secretAccess("WARDEN_ENDPOINT_SECRET_ARN", settings.chatopsSecretArn!), [claimsAccess(CLAIM_KEYS.chatops, "dynamodb:PutItem", "dynamodb:GetItem")], worker("Worker", "chat", chatJobs), reaches("gitlab", "n8n", "policy")).url;
    // A durable function: a run goes on across invocations, in checkpointed steps, for up to its
    // execution timeout. A lease in the claims table (taken, checked, released) keeps two executions
    // from running the job at once. SST publishes a version whenever the function changes, and the
    // schedule invokes that version: an execution stays on the code it started with. WorkflowArgs has
    // no `retries`: Lambda's asynchronous retry settings stay AWS's defaults.
    // Named, so that its role's policy can name its ARN before the function exists (ownExecutionsOnly).
    const enforceName = lambdaName(`${$app.name}-${$app.stage}-Enforce`);
    const enforce = settings.gitlabUrl
      ? ownLogGroupOnly((role) => new sst.aws.Workflow("Enforce", {
          name: enforceName,
          transform: {
            function: {
              role: (args) => {
                ownExecutionsOnly(enforceName, args);
                return role(args);
              },
            },
          },
          ...lambda(
            "functions/enforce.handler",
            ...secretsFor(["enforce"]),
            reaches("gitlab", "policy"),
            // Its own runs and its restores' are kept; a restore reads the enforce runs.
            historyAccess(["enforce", "restore"], ["enforce"]),
            claimsAccess(CLAIM_KEYS.enforce, "dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"),
            claimsAccess(CLAIM_KEYS.sweep, "dynamodb:PutItem", "dynamodb:GetItem"),
            ...(settings.events ? [claimsAccess(CLAIM_KEYS.heard, "dynamodb:GetItem")] : []),
            claimsAccess(LAST_SWEEP, "dynamodb:PutItem", "dynamodb:GetItem"),
            // The handler sizes its lease and its own deadline by the execution timeout set here.
            { environment: { WARDEN_EXECUTION_TIMEOUT_SECONDS: String(settings.enforceExecutionHours * 3600) } },
            // What its sweeps judge beside them (functions/shared/runs/event-coverage.ts): the event-driven paths deployed.
            {
              environment: {
                WARDEN_EVENTS: settings.events ? "on" : "off",
                WARDEN_WATCH: settings.watchSchedule.enabled ? "on" : "off",
                WARDEN_EVENTS_SILENCE_HOURS: String(settings.eventsSilenceHours),
              },
            },
          ),
          timeout: { invocation: "15 minutes", execution: quantity(settings.enforceExecutionHours, "hour") },
          retention: quantity(settings.executionRetentionDays, "day"),
        }), (workflow) => workflow.nodes.function.nodes.logGroup)
      : undefined;
    if (enforce) {
      // For the AWS CLI: a durable function is invoked, and its executions listed, by version.
      outputs["enforceFunction"] = enforce.name;
      outputs["enforceVersion"] = enforce.qualifier;
    }
    const jobs = [
      ...(enforce ? [{ name: "Enforce", job: "enforce", schedule: settings.enforceSchedule, target: enforce }] : []),
      ...(settings.n8nUrl ? [{ name: "Workflows", job: "workflows", schedule: settings.workflowsSchedule, target: job("functions/workflows.handler", ["workflows"], reaches("n8n", "policy"), historyAccess(["workflows"]), claimsAccess(CLAIM_KEYS.workflows, "dynamodb:GetItem", "dynamodb:PutItem")) }] : []),
    ];
    // Watch (functions/watch.ts): GitLab's audit events polled each minute, only the subjects they name
    // enforced. Its cursor and its lease are items of the claims table, and so is the removal budget it shares with the
    // EventsWorker under a policy no full run has judged (it only updates it); a poll is short, and a lease
    // left by an invocation that died expires with that invocation's timeout. Its runs are Enforce's
    // (job enforce, trigger watch): Enforce's alarms cover it, so it is a schedule but not a job below.
    const watch = settings.gitlabUrl
      ? [{ name: "Watch", schedule: settings.watchSchedule, target: { ...job("functions/watch.handler", ["enforce"], reaches("gitlab", "policy"), historyAccess(runsBy("watch", ["enforce"])), claimsAccess(CLAIM_KEYS.watch, "dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"), claimsAccess(CLAIM_KEYS.watchCursor, "dynamodb:PutItem", "dynamodb:GetItem"), claimsAccess(LAST_SWEEP, "dynamodb:GetItem"), claimsAccess(CLAIM_KEYS.removalBudget, "dynamodb:UpdateItem")), timeout: "2 minutes" as const } }]
      : [];
    // "off" keeps the function, for console runs, and disables its schedule. SST wants every top-level
    // component name unique across kinds (case-insensitive): the Enforce workflow has "Enforce".
    // The function each schedule invokes, by its Lambda name: the alarms below watch its invocations. A function made
    // from arguments is the cron's own, its role given ownLogGroupOnly's transform there; Enforce's has it already.
    const invoked: Record<string, $util.Output<string>> = {};
    for (const { name, schedule, target } of [...jobs, ...watch]) {
      const cron = (fn: sst.aws.CronV2Args["function"]) => new sst.aws.CronV2(`${name}Schedule`, { schedule: schedule.expression, enabled: schedule.enabled, event: { source: "schedule" }, function: fn });
      if (target instanceof sst.aws.Workflow) {
        cron(target);
        invoked[name] = target.name;
      } else {
        const made = ownLogGroupOnly((role) => cron({ ...target, transform: { role } }), (c) => c.nodes.function.apply((fn) => fn.nodes.logGroup));
        invoked[name] = made.nodes.function.apply((fn) => fn.name);
      }
    }

    const topic = new sst.aws.SnsTopic("Alarms");
    if (settings.alarmEmail) new aws.sns.TopicSubscription("AlarmEmail", { topic: topic.arn, protocol: "email", endpoint: settings.alarmEmail });
    // One alarm, on Warden's metrics unless it names another namespace: named `<app>-<stage>-<what>-<suffix in kebab case>`,
    // told to the topic. Warden's metrics come from the EMF in its functions' logs, and CloudWatch takes EMF from any log
    // group: code in any of Warden's functions may add data points to them, each in its own log group, of any value. So
    // they are read by their Maximum, which an added point can raise (a false alarm) but never lower: a negative
    // RunFailed cannot cancel a real one in a Sum, nor a cursor age of 0 hide a watch behind in a Minimum.
    const kebab = (words: string) => words.replace(/[A-Z]/g, (c, i: number) => `${i ? "-" : ""}${c.toLowerCase()}`);
    const alarm = (component: string, what: string, suffix: string, description: string, args: Omit<aws.cloudwatch.MetricAlarmArgs, "name" | "alarmDescription" | "alarmActions" | "okActions">) =>
      new aws.cloudwatch.MetricAlarm(component, {
        name: `${$app.name}-${$app.stage}-${what}-${kebab(suffix)}`,
        alarmDescription: `Warden ${what} (${$app.stage}): ${description}`,
        namespace: METRICS_NAMESPACE,
        alarmActions: [topic.arn],
        okActions: [topic.arn],
        ...args,
      });
    // Any data point at all in 5 minutes: one bad run, one sweep's misses, one event dropped is worth an operator's look.
    const anyInFiveMinutes = { period: 300, evaluationPeriods: 1, comparisonOperator: "GreaterThanOrEqualToThreshold", threshold: 1, treatMissingData: "notBreaching" } as const;
    for (const { name, job: jobName, schedule } of jobs) {
      const dimensions = { service: METRICS_SERVICE, stage: $app.stage, job: jobName };
      const jobAlarm = (suffix: string, description: string, args: Omit<aws.cloudwatch.MetricAlarmArgs, "name" | "alarmDescription" | "namespace" | "statistic" | "alarmActions" | "okActions">) =>
        alarm(`${name}${suffix}`, jobName, suffix, description, { statistic: "Maximum", ...args });
      // Any run, whoever started it.
      const anyRun = { dimensions, ...anyInFiveMinutes };
      jobAlarm("Failed", "a run failed, or left work undone", { ...anyRun, metricName: METRIC.runFailed });
      jobAlarm("GuardTripped", "a run's guard tripped: it planned more changes than the policy allows, and made none", { ...anyRun, metricName: METRIC.guardTripped });
      jobAlarm("ActionsFailed", "changes a run tried failed, or may not have happened", { ...anyRun, metricName: METRIC.actionsFailed });
      // Restore reads enforce's reports alone: a workflows run's not stored is its log line's to say.
      if (jobName === "enforce") jobAlarm("ReportNotStored", "a run's report could not be stored for restore: restore latest would take the run before it", { ...anyRun, metricName: METRIC.reportNotStored });
      if (!schedule.enabled) continue;
      // No successful scheduled run in two schedule periods; no metric at all (the schedule or the
      // function broken, the run killed) counts as none.
      jobAlarm("Heartbeat", "no successful scheduled run in two schedule periods", {
        dimensions: { ...dimensions, trigger: "schedule" },
        metricName: METRIC.runSucceeded,
        period: schedule.seconds,
        evaluationPeriods: 2,
        comparisonOperator: "LessThanThreshold",
        threshold: 1,
        treatMissingData: "breaching",
      });
    }
    // The watch's own (lib/jobs/watch): its cursor more than 15 minutes behind GitLab's audit events
    // in each of three 5-minute periods (a backlog not draining), or no poll reporting at all (the schedule off, every
    // poll failing): the missing metric counts as behind. Its runs' failures are Enforce's alarms above
    // (job enforce); the trigger dimension (watch) tells them apart.
    if (watch.length > 0 && settings.watchSchedule.enabled) {
      alarm("WatchBehind", "watch", "Behind", "the watch is more than 15 minutes behind GitLab's audit events, or has not polled", {
        metricName: METRIC.watchCursorAge,
        dimensions: { service: METRICS_SERVICE, stage: $app.stage, job: "enforce", trigger: "watch" },
        statistic: "Maximum",
        period: 300,
        evaluationPeriods: 3,
        comparisonOperator: "GreaterThanThreshold",
        threshold: 900,
        treatMissingData: "breaching",
      });
    }
    // Which alarms watch the watchers (functions/shared/runs/event-coverage.ts): a sweep found strays the watch
    // or the stream should have removed, or (events on) no delivery from GitLab for the silence setting.
    // A sweep reports each once a run: any in 5 minutes is worth a look; no sweep is the heartbeat's.
    const watchers = [
      ...(enforce && (settings.events || settings.watchSchedule.enabled) ? [{ suffix: "MissedByEvents", metric: METRIC.missedByEvents, description: "a sweep found strays the watch or the event stream should have removed and did not (the report names them)" }] : []),
      ...(enforce && settings.events ? [{ suffix: "EventsSilent", metric: METRIC.eventsSilent, description: `GitLab delivered no event to the Events endpoint for ${settings.eventsSilenceHours} hours (WARDEN_EVENTS_SILENCE_HOURS)` }] : []),
    ];
    for (const { suffix, metric, description } of watchers) {
      alarm(suffix, "enforce", suffix, description, {
        metricName: metric,
        dimensions: { service: METRICS_SERVICE, stage: $app.stage, job: "enforce" },
        statistic: "Maximum",
        ...anyInFiveMinutes,
      });
    }
    // An alarm of absence on Warden's metrics (a heartbeat, a watch that has not polled) is quieted by any data point, which
    // code in any function may forge. Lambda's own metrics (namespace AWS/Lambda) no one can write: each schedule's function
    // invoked not once in two schedule periods (at least 5 minutes each: the Watch polls each minute) is an alarm of its own.
    for (const { name, schedule } of [...jobs, ...watch]) {
      if (!schedule.enabled) continue;
      alarm(`${name}NotInvoked`, name.toLowerCase(), "NotInvoked", "its schedule invoked the function not once in two schedule periods (Lambda's own count, which no function can forge)", {
        namespace: "AWS/Lambda",
        metricName: "Invocations",
        dimensions: { FunctionName: invoked[name]! },
        statistic: "Sum",
        period: Math.max(schedule.seconds, 300),
        evaluationPeriods: 2,
        comparisonOperator: "LessThanThreshold",
        threshold: 1,
        treatMissingData: "breaching",
      });
    }
    // A worker's run that never reports (Lambda's own metrics, which no function can write): an event dropped from its
    // queue (held past 6 hours behind a flood, or its one try spent: retries are off), so a chat command goes
    // unanswered or a subject unenforced until the sweep; or an invocation that failed outside the handler's reach
    // (a timeout, out of memory, an invalid event), which writes no RunFailed.
    const lambdaAlarm = ({ name, fn }: { name: string; fn: sst.aws.Function }, suffix: string, metricName: string, description: string) =>
      alarm(`${name}${suffix}`, kebab(name), suffix, description, { namespace: "AWS/Lambda", metricName, dimensions: { FunctionName: fn.name }, statistic: "Sum", ...anyInFiveMinutes });
    for (const made of workers) {
      lambdaAlarm(made, "Dropped", "AsyncEventsDropped", "events were dropped from its queue, never run (Lambda's count): a chat command left unanswered, or a subject left to the next sweep");
      lambdaAlarm(made, "Errors", "Errors", "an invocation failed where the run could not report it (Lambda's count: a timeout, out of memory, an invalid event)");
    }
    // An endpoint's requests refused past its reserved concurrency: a flood, forged or not (a tokenless request is
    // refused at once, but holds a slot while it is), that GitLab's deliveries, which it never sends again, or Slack's
    // commands met; the sweep is then the backstop, and nobody was told.
    for (const made of endpoints) {
      lambdaAlarm(made, "Throttled", "Throttles", "requests were refused past its reserved concurrency (Lambda's count): a flood, forged or not, that GitLab's deliveries (never sent again) or Slack's commands met");
    }
    outputs["alarmTopic"] = topic.arn;
    return outputs;
  },
});

function deploySettings(stage: string, cronProblem: CronCheck) {
  const env = process.env;
  const required = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`${name} must be set to deploy Warden (stage ${stage})`);
    return value;
  };
  const gitlabUrl = env["GITLAB_URL"] || undefined;
  const n8nUrl = env["N8N_URL"] || undefined;
  if (!gitlabUrl && !n8nUrl) throw new Error(`GITLAB_URL, N8N_URL or both must be set to deploy Warden (stage ${stage})`);
  const chatops = oneOf("WARDEN_CHATOPS", ["on", "off"], "on") === "on";
  const withEvents = events(gitlabUrl);
  // n8n alone, its key in a secret of its own: no function reads the jobs' secret, which may then be left out.
  const jobsSecretRead = gitlabUrl !== undefined || !env["WARDEN_N8N_SECRET_ARN"] || env["WARDEN_SECRET_ARN"];
  const secretArn = jobsSecretRead ? grantableArn("WARDEN_SECRET_ARN", required("WARDEN_SECRET_ARN"), "secret") : undefined;
  const endpointSecrets = endpointSecretArns(secretArn, chatops, withEvents);
  return {
    secretArn,
    ...endpointSecrets,
    n8nSecretArn: n8nSecretArn(n8nUrl, [secretArn, endpointSecrets.chatopsSecretArn, endpointSecrets.eventsSecretArn]),
    endpointConcurrency: upTo("WARDEN_ENDPOINT_CONCURRENCY", 10, 1000, "concurrent executions"),
    workerConcurrency: upTo("WARDEN_WORKER_CONCURRENCY", 5, 1000, "concurrent executions"),
    secretKmsKeyArn: env["WARDEN_SECRET_KMS_KEY_ARN"] ? grantableArn("WARDEN_SECRET_KMS_KEY_ARN", env["WARDEN_SECRET_KMS_KEY_ARN"], "kmsKey") : undefined,
    gitlabUrl,
    n8nUrl,
    allowHttp: env["WARDEN_ALLOW_HTTP"] === "1",
    policyFile: env["WARDEN_POLICY_FILE"],
    policyRepository: policyRepository(env, gitlabUrl),
    enforceSchedule: schedule("WARDEN_ENFORCE_SCHEDULE", "rate(1 day)", cronProblem),
    workflowsSchedule: schedule("WARDEN_WORKFLOWS_SCHEDULE", "rate(1 hour)", cronProblem),
    watchSchedule: schedule("WARDEN_WATCH_SCHEDULE", "rate(1 minute)", cronProblem),
    chatops,
    events: withEvents,
    eventsSilenceHours: silenceHours(withEvents),
    reportOnly: oneOf("WARDEN_REPORT_ONLY", ["true", "false"], String(stage !== "production")) === "true",
    alarmEmail: email("WARDEN_ALARM_EMAIL"),
    runHistoryDays: days("WARDEN_RUN_HISTORY_DAYS", 90),
    enforceExecutionHours: upTo("WARDEN_ENFORCE_EXECUTION_HOURS", 24, MAX_EXECUTION_HOURS, "hours"),
    executionRetentionDays: upTo("WARDEN_EXECUTION_RETENTION_DAYS", 14, MAX_RETENTION_DAYS, "days"),
  };
}

/**
 * `sst dev` on a stage that does not apply: its roles stay assumable account-wide until the stage is deployed
 * without sst dev or removed, so the secrets they read (every deploy reads one) must be the stage's own, holding
 * a test instance's token rather than the production one: refused until WARDEN_DEV_SECRETS=1 says so.
 */
function devSecrets(stage: string, settings: ReturnType<typeof deploySettings>): void {
  if (oneOf("WARDEN_DEV_SECRETS", ["1", "0"], "0") === "1") return;
  const secrets = { WARDEN_SECRET_ARN: settings.secretArn, WARDEN_N8N_SECRET_ARN: settings.n8nSecretArn, WARDEN_ENDPOINT_SECRET_ARN: settings.chatopsSecretArn, WARDEN_EVENTS_SECRET_ARN: settings.eventsSecretArn };
  const read = Object.keys(secrets).filter((name) => secrets[name as keyof typeof secrets]);
  throw new Error(
    `sst dev on stage ${stage} lets any principal in the account allowed sts:AssumeRole assume its functions' roles, for as long as the stage stays deployed by sst dev, and read the secrets they read (${read.join(", ")}). ` +
      "Give the stage secrets of its own, holding a test instance's token, then run sst dev with WARDEN_DEV_SECRETS=1 (docs/aws.md)",
  );
}

/** A Lambda function's name, refused past Lambda's 64 characters (a long app or stage name) rather than cut. */
function lambdaName(name: string): string {
  if (name.length > 64) throw new Error(`the function name ${name} is longer than Lambda's 64 characters: deploy under a shorter stage name`);
  return name;
}

/** SST's Transform of a role: a function of the role's arguments that returns nothing (undefined, as its type says). */
type RoleTransform = (args: aws.iam.RoleArgs) => undefined;

/**
 * A Deny of `actions` on all but `own` (and what is under it, `<own>:*`), added to the role's own inline policies,
 * which SST's Role owns as a whole: a policy attached beside them would be dropped by the next update of the role.
 * A deny leaves the managed grants whole, so what the role may still do is never interrupted.
 */
function denyAllBut(args: aws.iam.RoleArgs, name: string, actions: string[], own: $util.Input<string>): void {
  const policy = $util.jsonStringify({ Version: "2012-10-17", Statement: [{ Effect: "Deny", Action: actions, NotResource: [own, $interpolate`${own}:*`] }] });
  args.inlinePolicies = $util.all([args.inlinePolicies ?? [], policy]).apply(([policies, document]) => [...policies, { name, policy: document }]);
}

/**
 * The managed policy SST gives a durable function's role (AWSLambdaBasicDurableExecutionRolePolicy)
 * allows checkpointing and reading the state of every durable execution in the account: this denies all
 * but the named function's own. Lambda authorizes these against the execution's ARN (<function ARN>:
 * <version>/durable-execution/…); the unqualified ARN is spared too, in case it ever authorizes against
 * that. The ARN is made from the name, as the role is made before the function.
 */
function ownExecutionsOnly(functionName: string, args: aws.iam.RoleArgs): void {
  const arn = $interpolate`arn:${aws.getPartitionOutput().partition}:lambda:${aws.getRegionOutput().region}:${aws.getCallerIdentityOutput().accountId}:function:${functionName}`;
  denyAllBut(args, "EnforceOwnExecutionsOnly", ["lambda:CheckpointDurableExecution", "lambda:GetDurableExecutionState"], arn);
}

/**
 * SST gives every function's role AWSLambdaBasicExecutionRole (Enforce's the durable policy too): logs:CreateLogGroup,
 * CreateLogStream and PutLogEvents on every log group of the account, so code running in one function, a public one
 * included, could write lines into another's log group: Enforce's audit lines, restore's fallback input, among them.
 * `make` builds a component, giving its function's role the transform it is handed; this denies those actions on all but
 * the log group that function logs into (`groupOf`: SST's nodes.logGroup, the group in its loggingConfig) and its streams.
 * The group is read back from the component, by its ARN, not named by SST's naming rule: SST keeps a group's first name
 * (ignoreChanges), so a group an older deploy made stays the function's whatever the rule is now. The role is made inside
 * the component, before the group can be read from it: the denial's resource is handed over once the component exists.
 */
function ownLogGroupOnly<T>(make: (role: RoleTransform) => T, groupOf: (made: T) => $util.Output<aws.cloudwatch.LogGroup | undefined>): T {
  let handOver: (arn: $util.Output<string>) => void = () => undefined;
  const arn = $util.output(new Promise<$util.Output<string>>((resolve) => (handOver = resolve)));
  const made = make((args) => {
    denyAllBut(args, "OwnLogGroupOnly", ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"], arn);
    return undefined;
  });
  handOver(
    groupOf(made).apply((group) => {
      // SST makes none with `logging: false` or a group of the caller's; lambda() asks for neither.
      if (!group) throw new Error("a function without a log group of its own: its role could write no log group");
      return group.arn;
    }),
  );
  return made;
}

/**
 * WARDEN_N8N_SECRET_ARN: n8n's key in a secret of its own, never one of the others (the jobs' holds the
 * GitLab token it is there to keep from Workflows; an endpoint's would hand n8n's key to a public function).
 */
function n8nSecretArn(n8nUrl: string | undefined, others: (string | undefined)[]): string | undefined {
  const value = process.env["WARDEN_N8N_SECRET_ARN"];
  if (!value) return undefined;
  if (!n8nUrl) throw new Error("WARDEN_N8N_SECRET_ARN is set without N8N_URL: no function reconciles n8n to read it. Unset it, or set N8N_URL (docs/aws.md)");
  const arn = grantableArn("WARDEN_N8N_SECRET_ARN", value, "secret");
  if (others.includes(arn)) throw new Error("WARDEN_N8N_SECRET_ARN names another of Warden's secrets (WARDEN_SECRET_ARN, WARDEN_ENDPOINT_SECRET_ARN or WARDEN_EVENTS_SECRET_ARN): create a secret of its own holding n8nApiKey (docs/aws.md)");
  return arn;
}

/**
 * WARDEN_ENDPOINT_SECRET_ARN (chat-ops) and WARDEN_EVENTS_SECRET_ARN (events): each public function's own
 * secret, never the jobs' nor the other's (with Slack's signing secret, the Events function could sign
 * any chat command). Full ARNs (grantableArn), so that string inequality is enough: no pattern naming two
 * secrets reaches a public function's policy.
 */
function endpointSecretArns(jobSecretArn: string | undefined, chatops: boolean, withEvents: boolean): { chatopsSecretArn?: string; eventsSecretArn?: string } {
  const arnOf = (variable: string, needs: string, fields: string) => {
    const value = process.env[variable];
    if (!value) throw new Error(`${variable} must be set with ${needs}: a secret of its own holding ${fields}, neither the jobs' nor the other public function's (docs/aws.md)`);
    const arn = grantableArn(variable, value, "secret");
    if (arn === jobSecretArn) throw new Error(`${variable} names the jobs' secret (WARDEN_SECRET_ARN): a public function would hold the GitLab token. Create a secret of its own with ${fields} (docs/aws.md)`);
    return arn;
  };
  const chatopsSecretArn = chatops ? arnOf("WARDEN_ENDPOINT_SECRET_ARN", "chat-ops on", "slackSigningSecret") : undefined;
  const eventsSecretArn = withEvents ? arnOf("WARDEN_EVENTS_SECRET_ARN", "events on", "gitlabStreamingToken and gitlabSystemHookToken") : undefined;
  if (chatopsSecretArn !== undefined && chatopsSecretArn === eventsSecretArn) {
    throw new Error("WARDEN_EVENTS_SECRET_ARN names the chat-ops secret (WARDEN_ENDPOINT_SECRET_ARN): the Events function would hold Slack's signing secret, and Chatops GitLab's tokens. Give each its own secret (docs/aws.md)");
  }
  return { ...(chatopsSecretArn && { chatopsSecretArn }), ...(eventsSecretArn && { eventsSecretArn }) };
}

/** WARDEN_EVENTS: the endpoint enforces GitLab's subjects, so it needs GitLab. */
function events(gitlabUrl: string | undefined): boolean {
  const on = oneOf("WARDEN_EVENTS", ["on", "off"], "off") === "on";
  if (on && !gitlabUrl) throw new Error("WARDEN_EVENTS=on needs GITLAB_URL: the events name GitLab projects and groups to enforce");
  return on;
}

/** WARDEN_EVENTS_SILENCE_HOURS: only with events on (it would mean nothing else); a week at most, within CloudWatch's reach of a daily sweep. */
function silenceHours(withEvents: boolean): number {
  if (!withEvents && process.env["WARDEN_EVENTS_SILENCE_HOURS"]) throw new Error("WARDEN_EVENTS_SILENCE_HOURS is set without WARDEN_EVENTS=on: it is the silence of the Events endpoint");
  return upTo("WARDEN_EVENTS_SILENCE_HOURS", 24, 168, "hours");
}

/** The variables of a policy in a GitLab repository, as every function gets them; undefined without WARDEN_POLICY_PROJECT. */
function policyRepository(env: NodeJS.ProcessEnv, gitlabUrl: string | undefined): Record<string, string> | undefined {
  const project = env["WARDEN_POLICY_PROJECT"];
  if (!project) {
    for (const name of ["WARDEN_POLICY_PATH", "WARDEN_POLICY_REF", "WARDEN_POLICY_ALLOW_UNPROTECTED_REF"]) if (env[name]) throw new Error(`${name} is set without WARDEN_POLICY_PROJECT, the GitLab project it is a path or ref in`);
    return undefined;
  }
  if (env["WARDEN_POLICY_FILE"]) throw new Error("WARDEN_POLICY_FILE and WARDEN_POLICY_PROJECT both name a policy: keep one (a file shipped in the bundle, or a GitLab repository's file)");
  if (!gitlabUrl) throw new Error("WARDEN_POLICY_PROJECT needs GITLAB_URL: the functions read the policy from that GitLab");
  const ref = env["WARDEN_POLICY_REF"];
  const vars: Record<string, string> = { WARDEN_POLICY_PROJECT: project, WARDEN_POLICY_PATH: env["WARDEN_POLICY_PATH"] || "warden.yaml", ...(ref ? { WARDEN_POLICY_REF: ref } : {}) };
  if (oneOf("WARDEN_POLICY_ALLOW_UNPROTECTED_REF", ["1", "0"], "0") === "1") vars["WARDEN_POLICY_ALLOW_UNPROTECTED_REF"] = "1";
  return vars;
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
  /** The heartbeat alarm's period: the rate's, or a day for a cron() (taken to run at least daily). */
  seconds: number;
}

const UNIT_SECONDS = { minute: 60, hour: 3600, day: 86_400 } as const;

/** CloudWatch evaluates an alarm over at most 7 days; the heartbeat looks at two periods. */
const MAX_HEARTBEAT_PERIOD = 604_800 / 2;

/** lib/config/cron-expression.ts's check, which run() imports (SST refuses a static import here). */
type CronCheck = (fields: string) => string | undefined;

/**
 * The schedule from `name`, or `fallback`; "off" disables it. Refuses at deploy time what EventBridge
 * Scheduler would refuse later: rate(N unit), or a cron() of six fields each as Scheduler takes it.
 */
function schedule(name: string, fallback: `rate(${string})`, cronProblem: CronCheck): Schedule {
  const expression = process.env[name] || fallback;
  // A disabled schedule still needs a valid expression.
  if (expression === "off") return { expression: fallback, enabled: false, seconds: UNIT_SECONDS.day };
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate && Number(rate[1]) > 0 && (rate[1] === "1") === !rate[2]!.endsWith("s")) {
    const seconds = Number(rate[1]) * UNIT_SECONDS[rate[2]!.replace(/s$/, "") as keyof typeof UNIT_SECONDS];
    if (seconds > MAX_HEARTBEAT_PERIOD) throw new Error(`${name}: "${expression}" is longer than CloudWatch's heartbeat alarm can watch (two periods within 7 days): 84 hours at most`);
    return { expression: expression as `rate(${string})`, enabled: true, seconds };
  }
  const cron = /^cron\((\S+(?: \S+){5})\)$/.exec(expression);
  if (cron) {
    const problem = cronProblem(cron[1]!);
    if (problem) throw new Error(`${name}: "${expression}" is not a cron() EventBridge Scheduler takes: ${problem}. For example cron(0 3 * * ? *), each day at 03:00 UTC`);
    return { expression: expression as `cron(${string})`, enabled: true, seconds: UNIT_SECONDS.day };
  }
  throw new Error(`${name}: "${expression}" is not a schedule expression (rate(1 day), rate(6 hours), cron(0 3 * * ? *)) or "off"`);
}

/**
 * The ARNs a setting puts in an IAM Resource, each as exactly one resource: a KMS key's (kms:Decrypt is
 * granted by the key's ARN: an alias, or an alias ARN, grants nothing), and a secret's in full, with the
 * six characters Secrets Manager adds to its name (a partial ARN, or one with `*` or `?`, is a pattern:
 * it may cover another secret, the jobs' included, and hand it to the public functions).
 */
const ARN_SHAPES = {
  kmsKey: { shape: /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/, what: "a KMS key ARN", form: "arn:aws:kms:<region>:<account>:key/<key id>; an alias will not do" },
  secret: {
    shape: /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/,
    what: "a full Secrets Manager secret ARN",
    form: "arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, no * or ?: the ARN `aws secretsmanager create-secret` or `describe-secret --query ARN` prints",
  },
} as const;

/** `value` of setting `name` when it has the shape `kind`'s ARNs have; otherwise the deploy fails, naming the setting and the form. */
function grantableArn(name: string, value: string, kind: keyof typeof ARN_SHAPES): string {
  const { shape, what, form } = ARN_SHAPES[kind];
  if (shape.test(value)) return value;
  throw new Error(`${name}: "${value}" is not ${what} (${form})`);
}

/** An address for the alarm topic's e-mail subscription, or undefined when unset. */
function email(name: string): string | undefined {
  const value = process.env[name];
  if (!value) return undefined;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return value;
  throw new Error(`${name}: "${value}" is not an e-mail address`);
}

function days(name: string, fallback: number): number {
  const value = process.env[name];
  if (!value) return fallback;
  if (/^[1-9]\d{0,4}$/.test(value)) return Number(value);
  throw new Error(`${name} must be a whole number of days (1 or more), not "${value}"`);
}

/** SST's log retention choices, in days (its logging.ts RETENTION, "forever" aside). */
const LOG_RETENTION = [
  ["1 day", 1], ["3 days", 3], ["5 days", 5], ["1 week", 7], ["2 weeks", 14], ["1 month", 30], ["2 months", 60], ["3 months", 90], ["4 months", 120],
  ["5 months", 150], ["6 months", 180], ["1 year", 365], ["13 months", 400], ["18 months", 545], ["2 years", 731], ["3 years", 1096], ["5 years", 1827],
  ["6 years", 2192], ["7 years", 2557], ["8 years", 2922], ["9 years", 3288], ["10 years", 3653],
] as const;

/** The shortest retention SST offers that keeps logs at least `days`. */
function logRetention(days: number): (typeof LOG_RETENTION)[number][0] | "forever" {
  return LOG_RETENTION.find(([, d]) => d >= days)?.[0] ?? "forever";
}

/** Lambda's limits for a durable function: an execution timeout of at most 366 days (31,622,400 s), history kept 1 to 90 days. */
const MAX_EXECUTION_HOURS = 366 * 24;
const MAX_RETENTION_DAYS = 90;

/** A whole number from 1 to `max` from `name`, or `fallback`: refused at deploy time rather than by Lambda. */
function upTo(name: string, fallback: number, max: number, unit: string): number {
  const value = process.env[name];
  if (!value) return fallback;
  if (/^[1-9]\d*$/.test(value) && Number(value) <= max) return Number(value);
  throw new Error(`${name} must be a whole number of ${unit} from 1 to ${max}, not "${value}"`);
}

/** An SST duration: "1 hour", "24 hours". */
function quantity<U extends "hour" | "day">(count: number, unit: U): `${number} ${U}` | `${number} ${U}s` {
  return count === 1 ? `${count} ${unit}` : `${count} ${unit}s`;
}
