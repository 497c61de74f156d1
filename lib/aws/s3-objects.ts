/**
 * The run-history bucket's objects through the AWS SDK's S3 client: the one store both front ends
 * read (`warden restore s3://…|latest`, the Enforce function's restore event) and the Lambdas write
 * (functions/shared/runs/run-history.ts). lib/aws is the only folder of lib/ that imports the AWS SDK,
 * and no lib layer imports it: lib/jobs reads stored runs through its port (lib/jobs/restore/run-history.ts's
 * RunObjects), and a front end hands it this (test/architecture.test.ts holds both rules).
 */
import { GetObjectCommand, paginateListObjectsV2, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";

export interface S3Objects {
  keys(bucket: string, prefix: string): AsyncIterable<string>;
  text(bucket: string, key: string): Promise<string>;
  put(bucket: string, key: string, body: string, metadata: Record<string, string>, signal?: AbortSignal): Promise<void>;
}

/** Over `client`, or one made when first needed (credentials and region as the AWS CLI reads them). */
export function s3Objects(client?: S3Client): S3Objects {
  const s3 = () => (client ??= new S3Client({}));
  return {
    async *keys(Bucket, Prefix) {
      // Listed in key order, one page after another.
      for await (const page of paginateListObjectsV2({ client: s3() }, { Bucket, Prefix })) {
        for (const { Key } of page.Contents ?? []) if (Key) yield Key;
      }
    },
    async text(Bucket, Key) {
      const { Body } = await s3().send(new GetObjectCommand({ Bucket, Key }));
      if (!Body) throw new Error("the object is empty");
      return Body.transformToString("utf8");
    },
    async put(Bucket, Key, Body, Metadata, signal) {
      await s3().send(new PutObjectCommand({ Bucket, Key, Body, ContentType: "application/json", Metadata }), { abortSignal: signal });
    },
  };
}
