/** sst.config.ts keeps each function to its own (issue 28): no public function reads the jobs' secret, and every grant is to the function's own keys and prefixes. */
import { describe, expect, it } from "vitest";
import { policySha256 } from "../lib/policy/index.ts";
import { BUCKET, CLAIMS, deploy, ENDPOINT_SECRET, EVENTS_SECRET, expectRefused, N8N_SECRET, refusals, SECRET, type FunctionView, type RoleStatement } from "./support/sst/deploy.ts";

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

/**
 * The AWS managed policies SST attaches to a function's role, as AWS publishes them (AWS Managed Policy
 * reference, docs.aws.amazon.com/aws-managed-policy/latest/reference/): each allows these actions on "*".
 */
const MANAGED: Record<string, string[]> = {
  "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
  "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicDurableExecutionRolePolicy": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents", "lambda:CheckpointDurableExecution", "lambda:GetDurableExecutionState"],
};
/** Whether a statement of another policy on the role covers `resource` (its Resource, or outside its NotResource). */
const covers = (s: RoleStatement, action: string, resource: string) =>
  s.actions.includes(action) && (s.resources ? s.resources.some((r) => iamMatches(r, resource)) : !s.notResources!.some((r) => iamMatches(r, resource)));
/** What the role's policies together allow, as IAM evaluates them: some statement allows, and none denies. */
function roleAllows(f: FunctionView, action: string, resource: string): boolean {
  const managed = f.managedPolicyArns.some((arn) => {
    if (!MANAGED[arn]) throw new Error(`the test knows nothing of ${arn}`);
    return MANAGED[arn].includes(action);
  });
  const others = f.rolePolicyStatements;
  const allowed = managed || allows(f, action, resource) || others.some((s) => s.effect === "Allow" && covers(s, action, resource));
  return allowed && !others.some((s) => s.effect === "Deny" && covers(s, action, resource));
}

/** A run-history key as lib/jobs/restore/run-history.ts's runKey makes it: runs/<job>/<trigger>/<time>-<id>.json. */
const runKey = (job: string, trigger: string) => `arn:aws:s3:::${BUCKET}/runs/${job}/${trigger}/20260101T000000.000Z-planted.json`;

describe("sst.config.ts keeps each function to its own (issue 28: the public endpoints reach too far)", () => {
  it("gives the public Chatops and Events functions no read of the jobs' secret, which holds the GitLab token, nor of each other's", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    // With Slack's signing secret, whoever runs code in the Events function could sign any chat command.
    for (const [name, own, other] of [["Chatops", ENDPOINT_SECRET, EVENTS_SECRET], ["Events", EVENTS_SECRET, ENDPOINT_SECRET]] as const) {
      const f = deployed.fn(name);
      expect(allows(f, "secretsmanager:GetSecretValue", SECRET), name).toBe(false);
      expect(allows(f, "secretsmanager:GetSecretValue", own), name).toBe(true);
      expect(allows(f, "secretsmanager:GetSecretValue", other), name).toBe(false);
      expect(f.env, name).not.toHaveProperty("WARDEN_SECRET_ARN");
    }
    for (const name of ["Worker", "EventsWorker", "Enforce", "Workflows", "Watch"]) {
      for (const secret of [ENDPOINT_SECRET, EVENTS_SECRET]) expect(allows(deployed.fn(name), "secretsmanager:GetSecretValue", secret), name).toBe(false);
    }
  });

  // The aws review's finding: every job function read the one jobs' secret, so Workflows, which only talks to
  // n8n, held the GitLab token that removes access, and the GitLab jobs held n8n's key.
  it("with an n8n secret, gives Workflows n8n's key and no GitLab token, and no function that acts on GitLab alone n8n's key", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_N8N_SECRET_ARN: N8N_SECRET });
    const reads = (name: string) => [SECRET, N8N_SECRET].filter((secret) => allows(deployed.fn(name), "secretsmanager:GetSecretValue", secret));
    expect(reads("Workflows")).toEqual([N8N_SECRET]);
    expect(deployed.fn("Workflows").env).not.toHaveProperty("WARDEN_SECRET_ARN");
    for (const name of ["Enforce", "Watch", "EventsWorker"]) {
      expect(reads(name), name).toEqual([SECRET]);
      // Each is told the key has a secret of its own, so that a jobs' secret still holding it is refused.
      expect(deployed.fn(name).env, name).toMatchObject({ WARDEN_N8N_SECRET_SEPARATE: "1" });
      expect(deployed.fn(name).env, name).not.toHaveProperty("WARDEN_N8N_SECRET_ARN");
    }
    // The chat Worker runs both services' jobs; the public functions read neither.
    expect(reads("Worker")).toEqual([SECRET, N8N_SECRET]);
    for (const name of ["Chatops", "Events"]) expect(reads(name), name).toEqual([]);
    // A policy kept in GitLab is read with the GitLab token: Workflows then reads the jobs' secret too.
    const fromGitlab = await deploy("staging", { WARDEN_N8N_SECRET_ARN: N8N_SECRET, WARDEN_POLICY_FILE: undefined, WARDEN_POLICY_PROJECT: "1234" });
    expect([SECRET, N8N_SECRET].filter((secret) => allows(fromGitlab.fn("Workflows"), "secretsmanager:GetSecretValue", secret))).toEqual([SECRET, N8N_SECRET]);
    // n8n alone, its key in its own secret: no function reads the jobs' secret, which need not be there.
    const n8nOnly = await deploy("staging", { GITLAB_URL: undefined, WARDEN_SECRET_ARN: undefined, WARDEN_N8N_SECRET_ARN: N8N_SECRET });
    for (const [name, f] of n8nOnly.functions()) expect(f.env, name).not.toHaveProperty("WARDEN_SECRET_ARN");
    expect([SECRET, N8N_SECRET].filter((secret) => allows(n8nOnly.fn("Workflows"), "secretsmanager:GetSecretValue", secret))).toEqual([N8N_SECRET]);
    await expect(deploy("staging", { GITLAB_URL: undefined, WARDEN_SECRET_ARN: undefined })).rejects.toThrow("WARDEN_SECRET_ARN must be set to deploy Warden (stage staging)");
    // Without it, as before: every job function reads the jobs' secret, and none is told of another.
    const one = await deploy("staging");
    for (const [name, f] of one.functions()) expect(f.env, name).not.toHaveProperty("WARDEN_N8N_SECRET_SEPARATE");
    expect(allows(one.fn("Workflows"), "secretsmanager:GetSecretValue", SECRET)).toBe(true);
  });

  it("refuses an n8n secret that is another of Warden's secrets, a pattern, or has no n8n to serve", async () => {
    expect(
      await refusals([
        { WARDEN_N8N_SECRET_ARN: SECRET },
        { WARDEN_N8N_SECRET_ARN: ENDPOINT_SECRET },
        { WARDEN_EVENTS: "on", WARDEN_N8N_SECRET_ARN: EVENTS_SECRET },
        { WARDEN_N8N_SECRET_ARN: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-*" },
        { WARDEN_N8N_SECRET_ARN: N8N_SECRET, N8N_URL: undefined },
      ]),
    ).toEqual([
      ...Array<unknown>(3).fill(expect.stringContaining("WARDEN_N8N_SECRET_ARN names another of Warden's secrets")),
      expect.stringContaining('WARDEN_N8N_SECRET_ARN: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-*" is not a full Secrets Manager secret ARN'),
      expect.stringContaining("WARDEN_N8N_SECRET_ARN is set without N8N_URL"),
    ]);
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

  it("lets Watch, EventsWorker and Worker write only their own trigger's run history: none can store a run as another trigger's sweep for `restore latest`", async () => {
    // runKey puts the trigger in the key, and each of these functions runs under one trigger only
    // (functions/watch.ts "watch", functions/shared/events/subject-run.ts "event", functions/worker.ts "chat").
    // `restore latest` picks the newest of runs/enforce/{schedule,console,chat}/ (SWEEP_TRIGGERS).
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const own: Record<string, string> = { Watch: "watch", EventsWorker: "event", Worker: "chat" };
    const wrong: string[] = [];
    for (const [name, trigger] of Object.entries(own)) {
      expect(allows(deployed.fn(name), "s3:PutObject", runKey("enforce", trigger)), `${name} writes its own ${trigger} runs`).toBe(true);
      for (const other of ["schedule", "console", "chat", "watch", "event"].filter((t) => t !== trigger)) {
        if (allows(deployed.fn(name), "s3:PutObject", runKey("enforce", other))) wrong.push(`${name} may write runs/enforce/${other}/`);
      }
    }
    expect(wrong).toEqual([]);
    // Enforce's own runs are the schedule's and the console's, and its restores'.
    for (const trigger of ["schedule", "console"]) for (const job of ["enforce", "restore"]) expect(allows(deployed.fn("Enforce"), "s3:PutObject", runKey(job, trigger)), `Enforce ${job} ${trigger}`).toBe(true);
  });

  it("gives the chat Worker run-history prefixes only for the jobs the deployment has (GitLab-only: no workflows; n8n-only: no enforce or pipeline)", async () => {
    const wrong: string[] = [];
    const both = await deploy("staging");
    for (const job of ["enforce", "pipeline", "workflows"]) expect(allows(both.fn("Worker"), "s3:PutObject", runKey(job, "chat")), job).toBe(true);
    // Without N8N_URL a chat workflows run fails before any request (docs/aws.md): it never stores a report.
    const gitlabOnly = await deploy("staging", { N8N_URL: undefined });
    if (allows(gitlabOnly.fn("Worker"), "s3:PutObject", runKey("workflows", "chat"))) wrong.push("GitLab-only: Worker may write runs/workflows/");
    for (const job of ["enforce", "pipeline"]) expect(allows(gitlabOnly.fn("Worker"), "s3:PutObject", runKey(job, "chat")), `GitLab-only ${job}`).toBe(true);
    // Without GITLAB_URL there is no enforce or pipeline run, and no Enforce to write rules:last-sweep.
    const n8nOnly = await deploy("staging", { GITLAB_URL: undefined });
    for (const job of ["enforce", "pipeline"]) if (allows(n8nOnly.fn("Worker"), "s3:PutObject", runKey(job, "chat"))) wrong.push(`n8n-only: Worker may write runs/${job}/`);
    expect(allows(n8nOnly.fn("Worker"), "s3:PutObject", runKey("workflows", "chat"))).toBe(true);
    expect(wrong).toEqual([]);
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
    expect(put("EventsWorker", "lease:enforce")).toBe(false);
    expect(put("Watch", "lease:enforce")).toBe(false);
    expect(put("Enforce", "watch:cursor")).toBe(false);
    expect(put("Enforce", "lease:enforce")).toBe(true);
    expect(put("Watch", "watch:cursor")).toBe(true);
    expect(put("Watch", "watch:summary:0a1b")).toBe(true);
    expect(put("Watch", "worker:summary:0a1b")).toBe(false);
  });

  it("lets the Events function record what it heard and the sweep read it, and no other function write either (issue 29.2)", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const can = (name: string, action: string, key: string) => allows(deployed.fn(name), action, CLAIMS, { "dynamodb:LeadingKeys": [key] });
    for (const key of ["heard:stream", "heard:system-hook"]) {
      expect(can("Events", "dynamodb:PutItem", key), key).toBe(true);
      expect(can("Enforce", "dynamodb:GetItem", key), key).toBe(true);
      // A job cannot fake a delivery (and hide the silence), nor chat-ops or the watch.
      for (const name of ["Enforce", "Chatops", "Worker", "EventsWorker", "Watch"]) expect(can(name, "dynamodb:PutItem", key), `${name} ${key}`).toBe(false);
    }
    expect(can("Enforce", "dynamodb:PutItem", "sweep:judged")).toBe(true);
    expect(can("Enforce", "dynamodb:DeleteItem", "sweep:judged")).toBe(false);
    // No public function can move the sweep's window (and so hide a miss).
    for (const name of ["Events", "Chatops", "Worker", "EventsWorker", "Watch"]) expect(can(name, "dynamodb:PutItem", "sweep:judged"), name).toBe(false);
    expect(deployed.fn("Enforce").env).toMatchObject({ WARDEN_EVENTS: "on", WARDEN_WATCH: "on", WARDEN_EVENTS_SILENCE_HOURS: "24" });
    // Without events, Enforce reads no delivery record.
    const off = await deploy("staging", { WARDEN_WATCH_SCHEDULE: "off" });
    expect(allows(off.fn("Enforce"), "dynamodb:GetItem", CLAIMS, { "dynamodb:LeadingKeys": ["heard:stream"] })).toBe(false);
    expect(off.fn("Enforce").env).toMatchObject({ WARDEN_EVENTS: "off", WARDEN_WATCH: "off" });
  });

  it("takes WARDEN_EVENTS_SILENCE_HOURS with events on, 1 to 168 hours, and refuses it otherwise", async () => {
    expect((await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_EVENTS_SILENCE_HOURS: "6" })).fn("Enforce").env).toMatchObject({ WARDEN_EVENTS_SILENCE_HOURS: "6" });
    await expectRefused(["0", "-1", "a day", "169", "1.5"], (bad) => ({ WARDEN_EVENTS: "on", WARDEN_EVENTS_SILENCE_HOURS: bad }), (bad) => `WARDEN_EVENTS_SILENCE_HOURS must be a whole number of hours from 1 to 168, not "${bad}"`);
    await expect(deploy("staging", { WARDEN_EVENTS_SILENCE_HOURS: "6" })).rejects.toThrow("WARDEN_EVENTS_SILENCE_HOURS is set without WARDEN_EVENTS=on");
  });

  it("lets Enforce alone write the last full run's record (and read it); Watch and the EventsWorker only read it, the chat Worker and the endpoints not at all", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const can = (name: string, action: string) => allows(deployed.fn(name), action, CLAIMS, { "dynamodb:LeadingKeys": ["rules:last-sweep"] });
    expect(can("Enforce", "dynamodb:PutItem")).toBe(true);
    // And reads it before its own run: the removals GitLab refused the last one its guard does not count (lib/jobs/enforce/rules.ts).
    expect(can("Enforce", "dynamodb:GetItem")).toBe(true);
    // Read by functions/watch.ts and functions/shared/events/subject-run.ts (the EventsWorker) alone: their runs are targeted.
    for (const name of ["Watch", "EventsWorker"]) {
      expect(can(name, "dynamodb:GetItem"), name).toBe(true);
      for (const action of ["dynamodb:PutItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"]) expect(can(name, action), `${name} ${action}`).toBe(false);
    }
    // functions/worker.ts passes a chat command's JobRequest, which has no targets or lastSweep, to runJob.
    for (const name of ["Worker", "Chatops", "Events", "Workflows"]) {
      for (const action of ["dynamodb:GetItem", "dynamodb:PutItem"]) expect(can(name, action), `${name} ${action}`).toBe(false);
    }
    // Enforce only overwrites it: the item outlives any one run.
    expect(allows(deployed.fn("Enforce"), "dynamodb:DeleteItem", CLAIMS, { "dynamodb:LeadingKeys": ["rules:last-sweep"] })).toBe(false);
  });

  // The together review's finding: the Watch's runs, targeted as the EventsWorker's are, took from no removal budget, so under a
  // policy no full run had judged each poll removed up to gitlab.guard.maxRemovals (functions/shared/state/removal-budget.ts).
  it("lets the Watch and the EventsWorker alone update the removal budget targeted runs share, and the Watch nothing else of the EventsWorker's budgets", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const can = (name: string, action: string, key: string) => allows(deployed.fn(name), action, CLAIMS, { "dynamodb:LeadingKeys": [key] });
    const item = `budget:stream:${policySha256("scope: {}")}`;
    for (const name of ["Watch", "EventsWorker"]) expect(can(name, "dynamodb:UpdateItem", item), name).toBe(true);
    for (const name of ["Events", "Chatops", "Worker", "Enforce", "Workflows"]) expect(can(name, "dynamodb:UpdateItem", item), name).toBe(false);
    // A policy's item and no other key: not the hours of the events' request budget (state/event-request-budget.ts).
    for (const key of ["budget:stream:requests:2026-11-30T14", `${item}0`, "budget:stream:"]) expect(can("Watch", "dynamodb:UpdateItem", key), key).toBe(false);
    for (const action of ["dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:DeleteItem"]) expect(can("Watch", action, item), action).toBe(false);
  });

  // The record of the changes n8n refused the last Workflows run for good (functions/shared/state/workflows-refusals.ts): the
  // next run's guard counts them not, so whoever could write it could have n8n.guard.maxChanges pass a run it would trip.
  it("lets Workflows alone get and put its record of the changes n8n refused, and touch no other key", async () => {
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const can = (name: string, action: string, key = "workflows:refused") => allows(deployed.fn(name), action, CLAIMS, { "dynamodb:LeadingKeys": [key] });
    const dynamo = deployed.fn("Workflows").statements.filter((s) => s.actions.some((a) => a.startsWith("dynamodb:")));
    expect(dynamo).toEqual([{ actions: ["dynamodb:GetItem", "dynamodb:PutItem"], resources: [CLAIMS], conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["workflows:refused"] } } }]);
    expect(deployed.fn("Workflows").env).toMatchObject({ WARDEN_CLAIMS_TABLE: "ClaimsTable-a1b2c3" });
    // Only overwritten: the item outlives any one run.
    for (const action of ["dynamodb:DeleteItem", "dynamodb:UpdateItem"]) expect(can("Workflows", action), action).toBe(false);
    for (const key of ["workflows:refused:x", "rules:last-sweep", "lease:enforce", "watch:cursor", "worker:req-1"]) expect(can("Workflows", "dynamodb:PutItem", key), key).toBe(false);
    // A chat command's workflows run (the Worker) reads no record and keeps none.
    for (const [name] of deployed.functions()) {
      if (name === "Workflows") continue;
      for (const action of ["dynamodb:GetItem", "dynamodb:PutItem"]) expect(can(name, action), `${name} ${action}`).toBe(false);
    }
  });

  it("lets Enforce checkpoint and read only its own durable executions: Lambda's managed policy for durable functions allows any function's", async () => {
    const deployed = await deploy();
    const enforce = deployed.fn("Enforce");
    // A durable execution's ARN is its function version's, then /durable-execution/<name>/<id> (Lambda's durable-security page).
    const own = [`${enforce.arn}:1/durable-execution/schedule/0a1b`, `${enforce.arn}:$LATEST/durable-execution/console/2c3d`, enforce.arn];
    const others = ["arn:aws:lambda:eu-west-1:123456789012:function:payments:4/durable-execution/pay/5e6f", `${enforce.arn}-copy:1/durable-execution/x/7a8b`];
    for (const action of ["lambda:CheckpointDurableExecution", "lambda:GetDurableExecutionState"]) {
      for (const execution of own) expect(roleAllows(enforce, action, execution), `${action} ${execution}`).toBe(true);
      for (const execution of others) expect(roleAllows(enforce, action, execution), `${action} ${execution}`).toBe(false);
    }
    // Among the role's own inline policies: a RolePolicy beside them would be dropped by the next update of SST's Role,
    // which owns that list as a whole (@pulumi/aws's Role with inlinePolicies).
    expect(enforce.attachedRolePolicies).toBe(0);
    // Its logs stay its own to write; no other function is durable.
    expect(roleAllows(enforce, "logs:PutLogEvents", `arn:aws:logs:eu-west-1:123456789012:log-group:${enforce.logGroup}:log-stream:y`)).toBe(true);
    for (const [name, f] of deployed.functions()) if (name !== "Enforce") expect(roleAllows(f, "lambda:CheckpointDurableExecution", own[0]!), name).toBe(false);
  });

  // A hostile review's finding: AWSLambdaBasicExecutionRole (and the durable policy) allow logs:CreateLogGroup,
  // CreateLogStream and PutLogEvents on "*", so the public Chatops and Events functions could write lines into Enforce's
  // log group (its remove-share audit lines are restore's fallback) and the Worker's (chat-command, create-pipeline),
  // and into any log group of the account.
  it("lets each function write its own log group and no other: no public function can forge Enforce's or the Worker's audit lines", async () => {
    const deployed = await deploy("production", { WARDEN_EVENTS: "on" });
    const functions = deployed.functions();
    expect(functions.map(([name]) => name).sort()).toEqual(["Chatops", "Enforce", "Events", "EventsWorker", "Watch", "Worker", "Workflows"]);
    const group = (name: string) => `arn:aws:logs:eu-west-1:123456789012:log-group:${name}`;
    const stream = (name: string) => `${group(name)}:log-stream:2026/01/01/[$LATEST]forged`;
    const writes = (f: FunctionView, logGroup: string) => roleAllows(f, "logs:PutLogEvents", stream(logGroup)) || roleAllows(f, "logs:CreateLogStream", group(logGroup));
    const wrong: string[] = [];
    for (const [name, f] of functions) {
      // Its own, the group Lambda writes its lines to: it must keep these.
      // SST logs a durable function (Enforce, a Workflow) as JSON, the others as text.
      expect(f.lambda["loggingConfig"], name).toEqual({ logFormat: name === "Enforce" ? "JSON" : "Text", logGroup: f.logGroup });
      for (const action of ["logs:CreateLogStream", "logs:CreateLogGroup"]) expect(roleAllows(f, action, group(f.logGroup)), `${name} ${action} own`).toBe(true);
      expect(roleAllows(f, "logs:PutLogEvents", stream(f.logGroup)), `${name} logs:PutLogEvents own`).toBe(true);
      for (const [other, g] of functions) if (other !== name && writes(g, f.logGroup)) wrong.push(`${other} -> ${name}`);
      // Any other log group of the account: another application's, or one of the same prefix.
      for (const foreign of ["/aws/lambda/payments-prod", `${f.logGroup.slice(0, -8)}zzzzzzzz`]) if (writes(f, foreign)) wrong.push(`${name} -> ${foreign}`);
      if (roleAllows(f, "logs:CreateLogGroup", group("/aws/lambda/not-yet-deployed"))) wrong.push(`${name} creates /aws/lambda/not-yet-deployed`);
    }
    expect(wrong).toEqual([]);
    expect(deployed.fn("Enforce").logGroup).toBe("/aws/lambda/warden-production-Enforce");
  });

  it("reserves concurrency for the public functions (10, or WARDEN_ENDPOINT_CONCURRENCY), for each worker they start (5, or WARDEN_WORKER_CONCURRENCY), and for no scheduled job", async () => {
    // The endpoints invoke their workers asynchronously, up to 100 runs a streamed delivery: their own
    // limit does not bound how many workers a flood of forged events or slash commands has running.
    const deployed = await deploy("staging", { WARDEN_EVENTS: "on" });
    const reserved: Record<string, number> = { Chatops: 10, Events: 10, Worker: 5, EventsWorker: 5 };
    for (const [name, f] of deployed.functions()) expect(f.lambda["reservedConcurrentExecutions"], name).toBe(reserved[name]);
    const three = await deploy("staging", { WARDEN_EVENTS: "on", WARDEN_ENDPOINT_CONCURRENCY: "3", WARDEN_WORKER_CONCURRENCY: "2" });
    expect(three.fn("Chatops").lambda["reservedConcurrentExecutions"]).toBe(3);
    expect(three.fn("Events").lambda["reservedConcurrentExecutions"]).toBe(3);
    expect(three.fn("Worker").lambda["reservedConcurrentExecutions"]).toBe(2);
    expect(three.fn("EventsWorker").lambda["reservedConcurrentExecutions"]).toBe(2);
    await expectRefused(["0", "-1", "many", "1001"], (bad) => ({ WARDEN_ENDPOINT_CONCURRENCY: bad }), (bad) => `WARDEN_ENDPOINT_CONCURRENCY must be a whole number of concurrent executions from 1 to 1000, not "${bad}"`);
    // The same check (a deploy's process each: one value is enough to show the Worker's is made).
    await expect(deploy("staging", { WARDEN_WORKER_CONCURRENCY: "1001" })).rejects.toThrow('WARDEN_WORKER_CONCURRENCY must be a whole number of concurrent executions from 1 to 1000, not "1001"');
  });

  it("refuses a deploy whose chat-ops or events' secret is the jobs', the other's, or missing, and needs neither without chat-ops and events", async () => {
    const events = { WARDEN_EVENTS: "on" };
    expect(
      await refusals([
        { WARDEN_ENDPOINT_SECRET_ARN: SECRET },
        { WARDEN_ENDPOINT_SECRET_ARN: undefined },
        { ...events, WARDEN_EVENTS_SECRET_ARN: SECRET },
        { ...events, WARDEN_EVENTS_SECRET_ARN: undefined },
        { ...events, WARDEN_EVENTS_SECRET_ARN: ENDPOINT_SECRET },
      ]),
    ).toEqual([
      expect.stringContaining("WARDEN_ENDPOINT_SECRET_ARN names the jobs' secret (WARDEN_SECRET_ARN)"),
      expect.stringContaining("WARDEN_ENDPOINT_SECRET_ARN must be set with chat-ops on: a secret of its own holding slackSigningSecret"),
      expect.stringContaining("WARDEN_EVENTS_SECRET_ARN names the jobs' secret (WARDEN_SECRET_ARN)"),
      expect.stringContaining("WARDEN_EVENTS_SECRET_ARN must be set with events on: a secret of its own holding gitlabStreamingToken and gitlabSystemHookToken"),
      expect.stringContaining("WARDEN_EVENTS_SECRET_ARN names the chat-ops secret (WARDEN_ENDPOINT_SECRET_ARN)"),
    ]);
    // Events alone need no chat-ops secret, chat-ops alone no events' one.
    const eventsOnly = await deploy("staging", { ...events, WARDEN_CHATOPS: "off", WARDEN_ENDPOINT_SECRET_ARN: undefined });
    expect(eventsOnly.fn("Events").env).toMatchObject({ WARDEN_EVENTS_SECRET_ARN: EVENTS_SECRET });
    const none = await deploy("staging", { WARDEN_ENDPOINT_SECRET_ARN: undefined, WARDEN_EVENTS_SECRET_ARN: undefined, WARDEN_CHATOPS: "off" });
    for (const [name, f] of none.functions()) {
      expect(f.env, name).not.toHaveProperty("WARDEN_ENDPOINT_SECRET_ARN");
      expect(f.env, name).not.toHaveProperty("WARDEN_EVENTS_SECRET_ARN");
    }
  });

  it("refuses a secret ARN that is a pattern or partial (it could cover the jobs' secret and hand the public functions the GitLab token), naming the setting and the form", async () => {
    // Refused when it names the jobs' secret by string equality, which only holds between full ARNs.
    const cases = ["arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-*", "*", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-??????", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden"].flatMap((pattern) => ["WARDEN_ENDPOINT_SECRET_ARN", "WARDEN_EVENTS_SECRET_ARN", "WARDEN_SECRET_ARN"].map((name) => ({ name, pattern })));
    expect(await refusals(cases.map(({ name, pattern }) => ({ [name]: pattern, WARDEN_EVENTS: "on" })))).toEqual(
      cases.map(({ name, pattern }) => expect.stringContaining(`${name}: "${pattern}" is not a full Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>, no * or ?`)),
    );
    // The real secrets are still fine, each read by its own functions, in any partition.
    const deployed = await deploy("staging");
    expect(allows(deployed.fn("Chatops"), "secretsmanager:GetSecretValue", ENDPOINT_SECRET)).toBe(true);
    const govCloud = "arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:team/warden_1-AbC123";
    expect((await deploy("staging", { WARDEN_SECRET_ARN: govCloud })).fn("Enforce").statements).toContainEqual({ actions: ["secretsmanager:GetSecretValue"], resources: [govCloud] });
  });

  // A hostile review's finding: the functions refuse such an address when they run, but the deploy put a
  // credential written into it in plain text in every function's environment, the public ones' too.
  it("refuses at deploy a service address the functions would refuse: a credential in it, a query, plain http:// elsewhere", async () => {
    const refused = await refusals([{ GITLAB_URL: "https://warden:glpat-aaaabbbbccccddddeeee@gitlab.example.com" }, { N8N_URL: "https://n8n.example.com/?apiKey=n8n-secret-value" }, { GITLAB_URL: "http://gitlab.example.com" }]);
    expect(JSON.stringify(refused)).not.toMatch(/glpat|n8n-secret-value/);
    expect(refused).toEqual([
      "GITLAB_URL carries a user name or password: give the credential in its own setting, not in the address",
      expect.stringMatching(/^N8N_URL has a query \(\?…\) or fragment \(#…\)/),
      expect.stringMatching(/^GITLAB_URL is plain http:\/\/ to gitlab\.example\.com, .* deploy with WARDEN_ALLOW_HTTP=1$/),
    ]);
  });
});
