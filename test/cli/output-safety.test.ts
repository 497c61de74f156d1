/**
 * What the CLI writes when what it reads is hostile: names and answers that carry the credential or
 * terminal control sequences, and policy files that are not policies. Every output (report, --json,
 * audit lines, errors) is checked for the credential, and for any 6-character piece of it where a
 * service echoed it whole (so a cut cannot have left part of it). Pieces a service names on their own
 * are shown as any other text (docs/talking-to-gitlab.md: masking them would tell whoever chose the name).
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startN8nSim, type N8nSim, type SimWorkflow } from "../../sim/n8n/index.ts";
import { json, scriptedServer } from "../support/server.ts";
import { policyFile, warden, type CliRun } from "../support/cli.ts";
import { fragmentsOf } from "../support/fragments.ts";
import { reportJson } from "../support/report.ts";

const KEY = "n8n-api-key-hostile-51xq9w";
const POLICY = `version: 1
n8n:
  workflows:
    keepActive: ["tag:production"]
    unlisted: deactivate
    listedInactive: publish
  guard: { maxChanges: 100 }
`;

/** Names that echo the key at several offsets, as a service could, glued to other text or not. */
const ECHOES = [0, 1, 2, 3, 5, 8, 13].map((offset) => `${"x".repeat(offset)}${KEY} echoed`);
/** Names that hold a piece of the key, and nothing else of it. */
const PIECES = [4, 9, 14].map((start) => `part ${KEY.slice(start, start + 7)} of it`);
/** Names that would move the cursor, clear a line, forge one, or reorder what the terminal shows. */
const FORGERIES = [
  "\x1b[2K\rok: all shares in policy",
  "first\nok: all shares in policy",
  "Billing \u202egnp.exe\u202c sync",
  "isolate \u2066hidden\u2069 here",
  "csi \x9b31m red",
  "del \x7f and bell \x07",
];

function workflow(i: number, name: string): SimWorkflow {
  const at = "2025-01-01T00:00:00.000Z";
  return { id: `wf${i}`, name, active: true, isArchived: false, tags: [], hasTrigger: true, createdAt: at, updatedAt: at };
}

/** Every 6-character piece of `secret` that appears in `text`. */
function fragments(text: string, secret: string): string[] {
  return [...new Set(fragmentsOf(secret).filter((piece) => text.includes(piece)))];
}

const output = (run: CliRun) => run.stdout + run.stderr;
/** Raw characters no output may carry: C0 controls other than newline, DEL, C1, bidi controls. */
const RAW_UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

let sim: N8nSim;
let env: Record<string, string>;

beforeAll(async () => {
  // One workflow the policy keeps (a selector that matches nothing would leave the others on).
  const kept = { ...workflow(999, "kept"), tags: [{ id: "t1", name: "production" }] };
  sim = await startN8nSim({ generation: 1, workflows: [...[...ECHOES, ...PIECES, ...FORGERIES].map((name, i) => workflow(i, name)), kept], apiKeys: { [KEY]: {} } });
  env = { N8N_URL: sim.url, N8N_API_KEY: KEY, WARDEN_POLICY: policyFile(POLICY) };
});
afterAll(() => sim.close());
// Every test starts with every workflow active, and all but the kept one unlisted, so planned for deactivation.
beforeEach(() => {
  for (const wf of sim.workflows) wf.active = true;
});

describe("no output carries the credential", { timeout: 60_000 }, () => {
  it("names echoing the key, in the text, Markdown and JSON reports and the audit lines of an apply", async () => {
    const runs = await Promise.all([warden(["workflows"], env), warden(["workflows", "--json"], env), warden(["workflows", "--format", "markdown"], env)]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2]);
    // The names really were listed: each report has a row for each, masked (Markdown's too, where
    // escaping wrote the key as n8n\-api\-key\-…, which a plain match would miss, and a name masked
    // when it was read, before it was cut, as \[REDACTED\]).
    const unescaped = runs[2]!.stdout.replace(/\\(.)/g, "$1");
    for (const out of [runs[0]!.stdout, runs[1]!.stdout, unescaped]) expect(out.match(/\[REDACTED\]/g)!.length).toBeGreaterThanOrEqual(ECHOES.length);
    expect(unescaped).not.toContain(KEY);
    expect(fragments(unescaped, KEY).filter((f) => !PIECES.some((p) => p.includes(f)))).toEqual([]);
    const apply = await warden(["workflows", "--apply", "--json"], env);
    expect(apply.code).toBe(0);
    expect(apply.stderr.trim().split("\n")).toHaveLength(ECHOES.length + PIECES.length + FORGERIES.length);
    for (const run of [...runs, apply]) {
      expect(output(run)).not.toContain(KEY);
      expect(fragments(output(run), KEY).filter((f) => !PIECES.some((p) => p.includes(f)))).toEqual([]);
    }
    // A piece is shown as it is: whether it were masked would tell whoever named the workflow.
    for (const piece of PIECES) expect(runs[0]!.stdout).toContain(piece);
  });

  it("a policy file holding the key (--policy .env) is refused without quoting it", async () => {
    const dotenv = policyFile(`N8N_URL=${sim.url}\nN8N_API_KEY=${KEY}\nOTHER=1\n`, ".env");
    const run = await warden(["workflows", "--policy", dotenv], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden workflows: \S+\.env: expected a mapping, got a text of \d+ characters \(is it a policy file\?\)\n$/);
    expect(run.stderr).not.toContain("N8N_");
    expect(fragments(output(run), KEY)).toEqual([]);
  });

  it("a value quoting the key in a policy is cut and masked", async () => {
    const run = await warden(["workflows", "--policy", policyFile(`version: "${KEY}${"y".repeat(5000)}"\n`)], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden workflows: \S+: version: .+… \(\d+ more characters\)\n$/);
    expect(run.stderr.length).toBeLessThan(500);
    expect(fragments(output(run), KEY)).toEqual([]);
  });
});

describe("policy files that are not policies", () => {
  it("a file above 1 MiB is refused by its size, without being echoed", async () => {
    const big = policyFile("");
    writeFileSync(big, `version: 1\n# ${"z".repeat(2 * 1024 * 1024)}\n`);
    const run = await warden(["workflows", "--policy", big], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`warden workflows: ${big}: the file is 2.0 MiB, more than a policy's limit of 1.0 MiB: is it the right file?\n`);
  });

  it("a syntax error is named by line and column, with that one line cut, and nothing else of the file", async () => {
    const text = `version: 1\nn8n:\n\t- ${KEY} ${"w".repeat(3000)}\nsecond: ${"v".repeat(50)}\n`;
    const run = await warden(["workflows", "--policy", policyFile(text)], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden workflows: \S+: line 3, column 1: Tabs are not allowed as indentation; the line: \\x09- \[REDACTED\] w+… \(\d+ more characters\)\n$/);
    expect(run.stderr.length).toBeLessThan(600);
    expect(run.stderr).not.toContain("vvvvvv");
    expect(fragments(output(run), KEY)).toEqual([]);
  });
});

describe("terminal safety", () => {
  it("the text report shows control and bidi characters as visible escapes, so no line can be forged", async () => {
    const run = await warden(["workflows"], env);
    expect(run.code).toBe(2);
    expect(run.stdout).not.toMatch(RAW_UNSAFE);
    expect(run.stdout).not.toMatch(/^ok: all shares in policy/m);
    expect(run.stdout).toContain("\\x1b[2K\\x0dok: all shares in policy");
    expect(run.stdout).toContain("first\\x0aok: all shares in policy");
    expect(run.stdout).toContain("Billing \\u202egnp.exe\\u202c sync");
    expect(run.stdout).toContain("csi \\x9b31m red");
  });

  it("the JSON report and audit lines carry them only as \\u escapes, and still parse to the names", async () => {
    const dry = await warden(["workflows", "--json"], env);
    const apply = await warden(["workflows", "--apply", "--json"], env);
    for (const run of [dry, apply]) {
      expect(run.stdout).not.toMatch(RAW_UNSAFE);
      expect((reportJson(run.stdout) as { actions: { name: string }[] }).actions.map((a) => a.name)).toEqual(expect.arrayContaining(FORGERIES));
    }
    const audit = apply.stderr.trim().split("\n");
    expect(audit).toHaveLength(ECHOES.length + PIECES.length + FORGERIES.length);
    expect(apply.stderr).not.toMatch(RAW_UNSAFE);
    expect(audit.map((line) => (JSON.parse(line) as { name?: string }).name)).toEqual(expect.arrayContaining(FORGERIES));
  });

  it("an error message from the server is escaped on stderr", async () => {
    const hostile = await scriptedServer((_req, res) => json(res, 400, { message: "\x1b[2K\rok: all shares in policy\n\u202eforged" }));
    const run = await warden(["workflows"], { ...env, N8N_URL: hostile.url });
    await hostile.close();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warden workflows: .*\\x1b\[2K\\x0dok: all shares in policy\\x0a\\u202eforged/);
    expect(run.stderr).not.toMatch(RAW_UNSAFE);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
