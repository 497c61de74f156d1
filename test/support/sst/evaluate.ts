/**
 * `node evaluate.ts BUNDLE STAGE`: runs a run() bundle from build.ts under Pulumi's resource mocks, as
 * SST runs it under the Pulumi engine, and prints `~r` and JSON of every resource asked for (type
 * token, name, resolved inputs) and the program's outputs. Any failure of the program exits 1 with its
 * message on stderr. Physical names and ARNs are made up in the shape AWS gives them.
 *
 * `node evaluate.ts BUNDLE STAGE --refusals FILE`: FILE holds a JSON array of environments; the program
 * runs under each in turn, in this one process (a module instance of the bundle each), and `~e` and
 * JSON print each run's error message, or null where it was not refused. For deploys the config must
 * refuse: their resources are not read, so what one run leaves registered cannot mislead another.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import * as pulumi from "@pulumi/pulumi";

const [bundle, stage, mode, envsFile] = process.argv.slice(2);
/** The engine's register request, as the mock monitor is handed it (a protobuf message). */
interface RegisterRequest {
  getType(): string;
  getName(): string;
  hasRetainondelete(): boolean;
  getRetainondelete(): boolean;
}
const ACCOUNT = "123456789012";
const REGION = "eu-west-1";
const resources: { type: string; name: string; inputs: Record<string, unknown>; retainOnDelete?: boolean }[] = [];
/** What each resource's options asked the engine to keep on delete, by type and name: the mocks see inputs only. */
const retained = new Map<string, boolean>();

/** What AWS would give back for a resource: a name, an ARN, and a type's own outputs. */
function state(type: string, name: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const physical = String(inputs["name"] ?? `${name}-a1b2c3`);
  const service = type.split(/[:/]/)[1]!;
  switch (type) {
    case "aws:lambda/function:Function": {
      const arn = `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${physical}`;
      const version = inputs["publish"] ? "1" : "$LATEST";
      return { name: physical, arn, version, qualifiedArn: `${arn}:${version}`, invokeArn: `${arn}/invocations` };
    }
    case "aws:lambda/functionUrl:FunctionUrl":
      return { functionUrl: `https://${physical}.lambda-url.${REGION}.on.aws/` };
    case "aws:s3/bucket:Bucket":
      return { bucket: physical, arn: `arn:aws:s3:::${physical}` };
    case "aws:dynamodb/table:Table":
      return { name: physical, arn: `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${physical}` };
    case "aws:iam/role:Role":
      return { name: physical, arn: `arn:aws:iam::${ACCOUNT}:role/${physical}` };
    // As the provider gives it: without the ":*" CloudWatch Logs' own API adds.
    case "aws:cloudwatch/logGroup:LogGroup":
      return { name: physical, arn: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${physical}` };
    default:
      return { name: physical, arn: `arn:aws:${service}:${REGION}:${ACCOUNT}:${physical}` };
  }
}

const CALLS: Record<string, Record<string, string>> = {
  "aws:index/getCallerIdentity:getCallerIdentity": { accountId: ACCOUNT, arn: `arn:aws:iam::${ACCOUNT}:user/deployer`, userId: "AIDAEXAMPLE" },
  "aws:index/getRegion:getRegion": { region: REGION, name: REGION, endpoint: `ec2.${REGION}.amazonaws.com` },
  "aws:index/getPartition:getPartition": { partition: "aws", dnsSuffix: "amazonaws.com" },
};

const mocks: pulumi.runtime.Mocks = {
  newResource({ type, name, inputs }) {
    if (type !== "pulumi:pulumi:Stack") resources.push({ type, name, inputs });
    return { id: `${name}-id`, state: { ...inputs, ...state(type, name, inputs) } };
  },
  // The provider's data sources the config reads: who and where the deploy is.
  call: ({ token, inputs }) => CALLS[token] ?? inputs,
};

/** Runs the program once; resolves with its outputs. `job` gives the bundle a module instance of its own. */
async function runProgram(job = 0): Promise<unknown> {
  await pulumi.runtime.setMocks(mocks, "warden", stage, false);
  const monitor = pulumi.runtime.getMonitor() as unknown as { registerResource: (req: RegisterRequest, callback: unknown) => unknown };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    if (req.hasRetainondelete()) retained.set(`${req.getType()} ${req.getName()}`, req.getRetainondelete());
    return register(req, callback);
  };
  const outputs = await pulumi.runtime.runInPulumiStack(async () => (await import(`${pathToFileURL(bundle!).href}?job=${job}`)).default);
  // Resources made inside apply() callbacks register after the program returns.
  await new Promise((done) => setTimeout(done, 50));
  return outputs;
}

if (mode === "--refusals") {
  let rejected: unknown;
  process.on("unhandledRejection", (err) => (rejected ??= err));
  const messages: (string | null)[] = [];
  for (const [job, env] of (JSON.parse(readFileSync(envsFile!, "utf8")) as Record<string, string>[]).entries()) {
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, env);
    rejected = undefined;
    const error = await runProgram(job + 1).then(
      () => undefined,
      (err: unknown) => err,
    );
    // A refused run's other promises reject soon after its own: theirs, not the next run's.
    await new Promise((done) => setTimeout(done, 50));
    const refusal = error ?? rejected;
    messages.push(refusal === undefined ? null : refusal instanceof Error ? refusal.message : String(refusal));
  }
  process.stdout.write(`~e${JSON.stringify(messages)}\n`);
} else {
  process.on("unhandledRejection", (err) => fail(err));
  try {
    const outputs = await runProgram();
    const kept = resources.map((r) => ({ ...r, ...(retained.has(`${r.type} ${r.name}`) && { retainOnDelete: retained.get(`${r.type} ${r.name}`) }) }));
    process.stdout.write(`~r${JSON.stringify({ resources: kept, outputs })}\n`);
  } catch (err) {
    fail(err);
  }
}

function fail(err: unknown): never {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
