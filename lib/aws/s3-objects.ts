/**
 * The run-history bucket's objects through the AWS SDK's S3 client: the one store both front ends
 * read (`warden restore s3://…|latest`, the Enforce function's restore event) and the Lambdas write
 * (functions/shared/runs/run-history.ts). lib/aws is the only folder of lib/ that imports the AWS SDK,
 * and no lib layer imports it: lib/jobs reads stored runs through its port (lib/jobs/restore/run-history.ts's
 * RunObjects), and a front end hands it this (test/architecture.test.ts holds both rules).
 */
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";

export interface S3Objects {
  keys(bucket: string, prefix: string, signal?: AbortSignal): AsyncIterable<string>;
  text(bucket: string, key: string, signal?: AbortSignal): Promise<string>;
  put(bucket: string, key: string, body: string, metadata: Record<string, string>, signal?: AbortSignal): Promise<void>;
}

/**
 * Every request bounded: an endpoint that takes the connection and never answers (a proxy, a wrong
 * AWS_ENDPOINT_URL_S3) would otherwise hold `warden restore s3://…` for ever. Each attempt's answer must
 * begin within requestTimeout (without throwOnRequestTimeout the SDK only warns once it has passed); that
 * timer ends with the answer's headers, so each call, its body read and its attempts included, has
 * CALL_MS in all (a body that stalls after its headers was waited on for ever).
 */
const TIMEOUTS = { connectionTimeout: 10_000, requestTimeout: 60_000, throwOnRequestTimeout: true };
const CALL_MS = 5 * 60_000;
const withinCall = (signal?: AbortSignal) => AbortSignal.any([AbortSignal.timeout(CALL_MS), ...(signal ? [signal] : [])]);

/**
 * The most of one object read (a stored run's report): the CLI reads a FILE up to as much. A stored run
 * of 100,000 removals is some tens of MB; past this an object would fill the heap the CLI and the
 * functions run with before anything could say why.
 */
export const MAX_OBJECT_MB = 64;
const MAX_OBJECT_BYTES = MAX_OBJECT_MB * 1024 * 1024;

/**
 * Over `client`, or one made when first needed (credentials and region as the AWS CLI reads them). With
 * `proxyEnv` (the CLI's environment), its requests go through the proxy its HTTP_PROXY / HTTPS_PROXY name,
 * NO_PROXY's hosts excepted, as the CLI's requests to GitLab do: the SDK itself connects directly, which on a
 * network whose only way out is the proxy failed as if the bucket could not be reached. Node's own proxy
 * support does it (Node 22.21 and 24.5 on; an older Node ignores the option and connects directly).
 */
export function s3Objects(client?: S3Client, proxyEnv?: NodeJS.ProcessEnv): S3Objects {
  const requestHandler = () => (proxyEnv ? { ...TIMEOUTS, httpAgent: new HttpAgent({ keepAlive: true, proxyEnv }), httpsAgent: new HttpsAgent({ keepAlive: true, proxyEnv }) } : TIMEOUTS);
  const s3 = () => (client ??= new S3Client({ requestHandler: requestHandler() }));
  return {
    async *keys(Bucket, Prefix, signal) {
      // Listed in key order, one page after another.
      let ContinuationToken: string | undefined;
      do {
        const page = await s3().send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }), { abortSignal: withinCall(signal) });
        for (const { Key } of page.Contents ?? []) if (Key) yield Key;
        const next = page.IsTruncated ? page.NextContinuationToken : undefined;
        // A token that comes again would list the same page for ever.
        if (next !== undefined && next === ContinuationToken) throw new Error(`listing s3://${Bucket}/${Prefix}: the same continuation token came again`);
        ContinuationToken = next;
      } while (ContinuationToken);
    },
    async text(Bucket, Key, signal) {
      const { Body, ContentLength } = await s3().send(new GetObjectCommand({ Bucket, Key }), { abortSignal: withinCall(signal) });
      if (!Body) throw new Error("the object is empty");
      const body = Body as AsyncIterable<Uint8Array> & { destroy?: () => void };
      const tooLarge = (size: string) => {
        body.destroy?.();
        return new Error(`s3://${Bucket}/${Key} is ${size}, more than a stored run Warden reads (${MAX_OBJECT_MB} MB): is it one Warden stored?`);
      };
      // Refused by its stated length before a byte is read, and by what arrives where the length lies or is not said.
      if (ContentLength !== undefined && ContentLength > MAX_OBJECT_BYTES) throw tooLarge(`${ContentLength} bytes`);
      const chunks: Uint8Array[] = [];
      let read = 0;
      for await (const chunk of body) {
        read += chunk.length;
        if (read > MAX_OBJECT_BYTES) throw tooLarge(`over ${MAX_OBJECT_BYTES} bytes`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString("utf8");
    },
    async put(Bucket, Key, Body, Metadata, signal) {
      await s3().send(new PutObjectCommand({ Bucket, Key, Body, ContentType: "application/json", Metadata }), { abortSignal: withinCall(signal) });
    },
  };
}
