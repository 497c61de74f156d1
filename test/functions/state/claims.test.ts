import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dynamoClaims } from "../../../functions/shared/state/claims.ts";
import { startDynalite, type Dynalite } from "../../../sim/aws/dynalite.ts";

let dynalite: Dynalite;
let table = "";
let tables = 0;

beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.close());

/** A fresh table per test, so no claim carries over. */
async function freshClaims(opts: { now?: () => number } = {}) {
  table = `claims-${++tables}`;
  await dynalite.createClaimsTable(table);
  return dynamoClaims({ client: dynalite.client(), table: () => table, ...opts });
}

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

describe("dynamoClaims against dynalite", () => {
  it("claims a key once: the same key again is refused, another key is not", async () => {
    const claims = await freshClaims();
    expect(await claims.claim("slack:1700000000:v0=abc", inAnHour())).toBe(true);
    expect(await claims.claim("slack:1700000000:v0=abc", inAnHour())).toBe(false);
    expect(await claims.claim("slack:1700000000:v0=abd", inAnHour())).toBe(true);
  });

  it("gives a key to exactly one of many concurrent claimants, in separate clients as in separate containers", async () => {
    await freshClaims();
    const claimants = Array.from({ length: 12 }, () => dynamoClaims({ client: dynalite.client(), table: () => table }));
    const results = await Promise.all(claimants.map((c) => c.claim("worker:req-1", inAnHour())));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("treats an expired claim as no claim, as DynamoDB's TTL deletes it only eventually", async () => {
    let now = Date.now();
    const claims = await freshClaims({ now: () => now });
    const expiresAt = Math.floor(now / 1000) + 300;
    expect(await claims.claim("slack:1:v0=x", expiresAt)).toBe(true);
    now += 299_000;
    expect(await claims.claim("slack:1:v0=x", expiresAt)).toBe(false);
    now += 2_000;
    expect(await claims.claim("slack:1:v0=x", expiresAt + 300)).toBe(true);
  });

  it("recognises its own claim when the SDK retries a write whose answer was lost", async () => {
    table = `claims-${++tables}`;
    await dynalite.createClaimsTable(table);
    const client = dynalite.client();
    let sent = 0;
    // The first PutItem reaches DynamoDB and succeeds, but its answer is lost: the SDK sends it again.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === "PutItemCommand" && sent++ === 0) throw Object.assign(new Error("the answer was lost"), { name: "TimeoutError" });
        return result;
      },
      { step: "deserialize", name: "loseFirstAnswer" },
    );
    const claims = dynamoClaims({ client, table: () => table });
    expect(await claims.claim("worker:req-2", inAnHour())).toBe(true);
    expect(sent).toBe(2);
    expect(await dynamoClaims({ client: dynalite.client(), table: () => table }).claim("worker:req-2", inAnHour())).toBe(false);
  });

  it("throws when the table cannot be used, rather than answer either way", async () => {
    const claims = dynamoClaims({ client: dynalite.client(), table: () => "no-such-table" });
    await expect(claims.claim("slack:1:v0=x", inAnHour())).rejects.toThrow(/non-existent table|not found/i);
  });

  it("reads the table's name from WARDEN_CLAIMS_TABLE, failing by name when it is unset", async () => {
    const claims = dynamoClaims({ client: dynalite.client() });
    const saved = process.env["WARDEN_CLAIMS_TABLE"];
    delete process.env["WARDEN_CLAIMS_TABLE"];
    try {
      await expect(claims.claim("slack:1:v0=x", inAnHour())).rejects.toThrow("WARDEN_CLAIMS_TABLE is not set");
    } finally {
      if (saved !== undefined) process.env["WARDEN_CLAIMS_TABLE"] = saved;
    }
  });
});
