/**
 * What the Enforce function finds around it in AWS, for the benchmark's durable row (durable-run.ts):
 * Secrets Manager's GetSecretValue and S3's PutObject (the run history, path-style, as the SDK
 * addresses an IP endpoint) on one loopback port, and dynalite for the claims table that holds the
 * execution's lease. Hosted by the benchmark's own process, so that the function's process is
 * measured alone; the function reaches them through the AWS SDK's per-service endpoint variables.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startDynalite } from "../../sim/aws/dynalite.ts";

/** A bench child's AWS settings: test credentials, and nothing from this machine's AWS configuration. */
export const ISOLATED_AWS_ENV = {
  AWS_REGION: "eu-west-1",
  AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  AWS_SESSION_TOKEN: "bench-session-token",
  // No ~/.aws file may point the SDK elsewhere.
  AWS_CONFIG_FILE: "/dev/null",
  AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
};

const SECRET_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:warden-bench-AbCdEf";
const BUCKET = "warden-bench-run-history";

export interface AwsStandIns {
  /** The AWS part of the deployed function's environment (sst.config.ts), pointed at the stand-ins. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startAwsStandIns(gitlabToken: string): Promise<AwsStandIns> {
  const secret = JSON.stringify({ gitlabToken });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.headers["x-amz-target"] === "secretsmanager.GetSecretValue" && (JSON.parse(body) as { SecretId?: string }).SecretId === SECRET_ARN) {
        res.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
        res.end(JSON.stringify({ ARN: SECRET_ARN, Name: "warden", VersionId: "v1", SecretString: secret, VersionStages: ["AWSCURRENT"], CreatedDate: 1.7e9 }));
      } else if (req.method === "PUT" && req.url?.startsWith(`/${BUCKET}/runs/`)) {
        res.writeHead(200, { etag: '"0"' }).end();
      } else {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ __type: "UnknownOperationException", message: `${req.method} ${req.url} is not stood in for` }));
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dynamo = await startDynalite();
  return {
    env: {
      ...ISOLATED_AWS_ENV,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
      AWS_ENDPOINT_URL_S3: url,
      ...(await dynamo.freshClaimsEnv()),
      WARDEN_SECRET_ARN: SECRET_ARN,
      WARDEN_RUN_HISTORY_BUCKET: BUCKET,
    },
    close: async () => {
      server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), dynamo.close()]);
    },
  };
}
