/**
 * The world a Lambda handler test file runs in, as the deployed functions find theirs: Secrets Manager
 * with the jobs', the chat-ops and the events' secrets, and where asked DynamoDB (dynalite), Lambda's Invoke API,
 * S3, a policy file and a GitLab simulator, with the environment sst.config.ts gives the functions,
 * pointed at them. The stand-ins start before the file's tests and stop after them; before each test
 * their state is reset (the secrets as given, nothing read, invoked or stored), the GitLab simulator
 * is started afresh, the claims table is a new one (a claim made in one test is new to the next), and
 * the environment is stubbed; after it, the environment is restored and the simulator closed.
 * The stand-ins are fields of the returned object, there once the file's beforeAll has run.
 */
import { afterAll, afterEach, beforeAll, beforeEach, vi } from "vitest";
import { startDynalite, type Dynalite } from "../../sim/aws/dynalite.ts";
import { GITLAB_EVENT_TOKENS } from "../../sim/aws/gitlab-deliveries.ts";
import { startGitLabSim, type GitLabSim, type GitLabSimOptions } from "../../sim/gitlab/index.ts";
import { ENDPOINT_SECRETS, SECRETS, startLambdaApi, startS3, startSecretsManager, stubAwsEnv, writePolicy, type LambdaApiStub, type S3Stub, type SecretsManagerStub } from "./lambda.ts";

export interface LambdaWorldOptions {
  /** The jobs' secret (SecretString): SECRETS by default; a function to build it once the other stand-ins are up. */
  secret?: string | ((world: LambdaWorld) => string);
  /** The chat-ops secret: ENDPOINT_SECRETS by default. */
  endpointSecret?: string;
  /** The events' secret: GITLAB_EVENT_TOKENS by default. */
  eventsSecret?: string;
  /** dynalite, with a claims table of its own for each test (WARDEN_CLAIMS_TABLE). */
  dynamo?: boolean;
  /** Lambda's Invoke API (AWS_ENDPOINT_URL_LAMBDA), accepting each invoke unless a test says otherwise. */
  lambdaApi?: boolean;
  /** S3 (AWS_ENDPOINT_URL_S3). */
  s3?: boolean;
  /** The text of the policy file WARDEN_POLICY names. */
  policy?: string;
  /** The GitLab simulator GITLAB_URL names, started before each test with these options. */
  gitlab?: () => GitLabSimOptions;
  /** More of each test's environment (after the stand-ins are up and the simulator started). */
  env?: (world: LambdaWorld) => Record<string, string | undefined>;
}

export interface LambdaWorld {
  secretsManager: SecretsManagerStub;
  dynamo: Dynalite;
  lambdaApi: LambdaApiStub;
  s3: S3Stub;
  policyPath: string;
  gitlab: GitLabSim;
  /** The test's claims table (with `dynamo`). */
  table: string;
}

export function lambdaWorld(opts: LambdaWorldOptions = {}): LambdaWorld {
  const world = {} as LambdaWorld;
  const secret = () => (typeof opts.secret === "function" ? opts.secret(world) : (opts.secret ?? JSON.stringify(SECRETS)));
  beforeAll(async () => {
    await Promise.all([
      opts.dynamo && startDynalite().then((d) => (world.dynamo = d)),
      opts.lambdaApi && startLambdaApi().then((l) => (world.lambdaApi = l)),
      opts.s3 && startS3().then((s) => (world.s3 = s)),
      opts.policy !== undefined && writePolicy(opts.policy).then((p) => (world.policyPath = p)),
    ]);
    world.secretsManager = await startSecretsManager(secret());
  });
  afterAll(async () => {
    await Promise.all([world.secretsManager?.close(), world.dynamo?.close(), world.lambdaApi?.close(), world.s3?.close()]);
  });
  beforeEach(async () => {
    const { secretsManager, lambdaApi, s3 } = world;
    const eventsSecretString = opts.eventsSecret ?? JSON.stringify(GITLAB_EVENT_TOKENS);
    Object.assign(secretsManager, { secretString: secret(), endpointSecretString: opts.endpointSecret ?? JSON.stringify(ENDPOINT_SECRETS), eventsSecretString, reads: [], queued: [] });
    if (lambdaApi) Object.assign(lambdaApi, { invokes: [], answer: "accept", onAccepted: undefined });
    s3?.objects.clear();
    if (opts.gitlab) world.gitlab = await startGitLabSim(opts.gitlab());
    const claims = world.dynamo ? await world.dynamo.freshClaimsEnv() : undefined;
    if (claims) world.table = claims.WARDEN_CLAIMS_TABLE;
    stubAwsEnv({
      ...claims,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
      ...(lambdaApi && { AWS_ENDPOINT_URL_LAMBDA: lambdaApi.url }),
      ...(s3 && { AWS_ENDPOINT_URL_S3: s3.url }),
      ...(world.policyPath && { WARDEN_POLICY: world.policyPath }),
      ...(opts.gitlab && { GITLAB_URL: world.gitlab.url }),
      ...opts.env?.(world),
    });
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    if (opts.gitlab) await world.gitlab.close();
  });
  return world;
}
