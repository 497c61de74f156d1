/**
 * dynalite 4 (DynamoDB on an in-memory LevelDB) on a loopback port, for the real v3 DynamoDB client:
 * point AWS_ENDPOINT_URL_DYNAMODB at `url`, or build a client with `client()`.
 */
import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

// dynalite ships no types: the one call used here.
const dynalite = createRequire(import.meta.url)("dynalite") as (opts: { createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

export interface Dynalite {
  url: string;
  /** A client for this server, with test credentials (dynalite checks none). */
  client(): DynamoDBClient;
  /** Creates a table keyed by the string attribute `id`, as sst.config.ts declares the claims table. */
  createClaimsTable(name: string): Promise<void>;
  /** A new, empty claims table, and the environment that points functions/shared/state/claims.ts at it. */
  freshClaimsEnv(): Promise<{ AWS_ENDPOINT_URL_DYNAMODB: string; WARDEN_CLAIMS_TABLE: string }>;
  close(): Promise<void>;
}

export async function startDynalite(): Promise<Dynalite> {
  // Tables are ACTIVE at once, not after dynalite's default half-second.
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let tables = 0;
  const client = (): DynamoDBClient => new DynamoDBClient({ endpoint: url, region: "eu-west-1", credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "dynalite-test-key" } });
  const createClaimsTable = async (name: string) => {
    const c = client();
    await c.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    );
    c.destroy();
  };
  return {
    url,
    client,
    createClaimsTable,
    async freshClaimsEnv() {
      const table = `claims-${++tables}`;
      await createClaimsTable(table);
      return { AWS_ENDPOINT_URL_DYNAMODB: url, WARDEN_CLAIMS_TABLE: table };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
