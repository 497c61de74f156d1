/**
 * Property: no error lib/http or lib/paging raises holds any piece (6+ characters) of a credential
 * that a service's answer echoed whole, wherever it puts it: the credential is masked whole before an
 * error cuts the message, so no cut can leave a piece of it behind. (Pieces a service sent on their
 * own are not masked: docs/talking-to-gitlab.md says why.) Seeded random credentials sit at random offsets of random
 * bodies (JSON message fields, plain text, HTML), and at every offset across the point where an error
 * cuts a service message; a scripted server answers them with 4xx, 5xx, non-JSON 200s and bodies cut
 * short, through the GitLab client's calls and listings.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { registerSecret } from "../../lib/redact/index.ts";
import { createRandom, type Random } from "../../sim/shared/random.ts";
import { scriptedServer, type ScriptedServer } from "../support/server.ts";

/** Where errors cut a service message (lib/http/errors.ts SERVICE_MESSAGE_MAX). */
const CUT = 300;
const ALPHABET = [..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"];
const FILLER = [...' .,:;!?()[]{}<>/="\'\n'];

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

let server: ScriptedServer;
let answer: Answer = { status: 200, contentType: "application/json", body: "[]" };
beforeAll(async () => {
  server = await scriptedServer((_req, res) => {
    res.writeHead(answer.status, { "content-type": answer.contentType });
    res.end(answer.body);
  });
});
afterAll(() => server.close());

const chars = (r: Random, n: number, from: readonly string[]) => Array.from({ length: n }, () => r.pick(from)).join("");
/** Text around a credential: words of credential-like characters broken by punctuation, never leading with a space. */
const filler = (r: Random, n: number) => (n === 0 ? "" : "x" + Array.from({ length: n - 1 }, () => r.pick(r.next() < 0.2 ? FILLER : ALPHABET)).join(""));

function credentials(r: Random): string[] {
  return [
    `glpat-${chars(r, 20 + r.int(12), ALPHABET)}`,
    `n8n-api-key-${chars(r, 16 + r.int(16), [..."abcdefghijklmnopqrstuvwxyz0123456789"])}`,
    chars(r, 8 + r.int(30), ALPHABET),
  ];
}

/** The ways a service can put text in front of a client. */
const SHAPES: ((text: string) => Omit<Answer, "status">)[] = [
  (text) => ({ contentType: "application/json", body: JSON.stringify({ message: text }) }),
  (text) => ({ contentType: "application/json", body: JSON.stringify({ message: { base: [text] } }) }),
  (text) => ({ contentType: "application/json", body: JSON.stringify({ error: text, code: 17 }) }),
  (text) => ({ contentType: "text/plain", body: text }),
  (text) => ({ contentType: "text/html", body: `<html><body><p>${text}</p></body></html>` }),
  (text) => ({ contentType: "application/json", body: `{"message":"${text}` }),
  // GitLab's 405 past the maximum offset, which a listing turns into a PagingError quoting it.
  (text) => ({ contentType: "application/json", body: JSON.stringify({ message: `Remaining records can be retrieved using keyset pagination. ${text}` }) }),
  (text) => ({ contentType: "", body: text }),
];
const STATUSES = [200, 201, 400, 401, 403, 404, 405, 409, 422, 500, 502, 503];

/** Pieces of a credential this long are looked for. */
const MIN_FRAGMENT = 6;

/** Every run of MIN_FRAGMENT characters of any credential found in `text`. */
function fragmentsIn(text: string, secrets: string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (let i = 0; i + MIN_FRAGMENT <= secret.length; i++) {
      const gram = secret.slice(i, i + MIN_FRAGMENT);
      if (text.includes(gram)) found.push(gram);
    }
  }
  return found;
}

describe("no error holds a fragment of a credential", () => {
  it("for random credentials at random offsets of random bodies, and at every offset across the cut", async () => {
    const r = createRandom(20_240_611);
    const secrets = credentials(r);
    for (const s of secrets) registerSecret(s);
    const gitlab = new GitLabClient({ url: server.url, token: secrets[0]!, limiters: new RateLimiterRegistry(), retry: { maxRetries: 0 } });
    const calls: (() => Promise<unknown>)[] = [
      () => gitlab.currentUser(),
      () => gitlab.call("DELETE", "/projects/:id/share/:group_id", { id: 1, group_id: 2 }),
      () => gitlab.listGroupProjects("acme").collect(),
      () => gitlab.listProjects().collect(),
    ];

    interface Case {
      secret: string;
      offset: number;
      status: number;
      shape: number;
      call: number;
    }
    const random = (secret: string, offset: number): Case => ({ secret, offset, status: r.pick(STATUSES), shape: r.int(SHAPES.length), call: r.int(calls.length) });
    const cases: Case[] = [];
    // Every offset that puts the cut inside a credential.
    for (const secret of secrets) for (let k = 0; k <= secret.length; k++) cases.push(random(secret, CUT - k));
    // A credential at the very start of a body, in every shape, call and kind of status (a parse error quotes a body's start).
    for (const secret of secrets)
      for (let offset = 0; offset < 5; offset++)
        for (let shape = 0; shape < SHAPES.length; shape++)
          for (let call = 0; call < calls.length; call++) for (const status of [200, 404, 502]) cases.push({ secret, offset, status, shape, call });
    // And anywhere.
    for (let i = 0; i < 1_000; i++) cases.push(random(r.pick(secrets), r.int(700)));

    let failures = 0;
    for (const [i, { secret, offset, status, shape, call }] of cases.entries()) {
      // The offset is counted in the text the error quotes; the body shapes wrap it in their own markup.
      const text = filler(r, offset) + secret + filler(r, r.int(400));
      answer = { status, ...SHAPES[shape]!(text) };
      const err = await calls[call]!().then(
        () => undefined,
        (e: unknown) => e,
      );
      if (!(err instanceof Error)) continue;
      failures++;
      const seen = [err.message, err.stack ?? "", JSON.stringify(err), String((err.cause as Error | undefined)?.message ?? "")].join("\n");
      const leaked = fragmentsIn(seen, secrets);
      // Says which case failed without printing the fragments themselves.
      if (leaked.length > 0) expect.fail(`case ${i}: ${err.name} (status ${status}, shape ${shape}, call ${call}, offset ${offset}) holds ${leaked.length} fragments`);
    }
    // Most cases must have produced an error, or the property says nothing.
    expect(failures).toBeGreaterThan(cases.length * 0.6);
  });
});
