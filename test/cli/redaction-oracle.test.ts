/**
 * Issue 28, point 1: redaction must not be an oracle for the token. Whoever chooses a text the CLI
 * prints (an argument, a project's path) must not learn, from whether a mask appears, that the text is
 * part of GITLAB_TOKEN. Only whole credentials are masked, and anything shaped like a token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { policyFile, warden } from "../support/cli.ts";
import { strayProjectsNamed } from "../support/guess-world.ts";
import { ACME_ONLY } from "../support/policies.ts";

const TOKEN = "glpat-Qx7mK2pL9vR4sT8wZ1aB";
/** Pieces of the token and pieces of nothing, alike but for one character. */
const PROBES: [inToken: string, notInToken: string][] = [
  ["lpat-Q", "lpat-P"],
  ["Qx7mK2", "Qx7mK3"],
  ["pL9vR4sT8wZ1aB", "pL9vR4sT8wZ1aC"],
  ["at-Qx7mK2pL9vR4sT8wZ1aB", "at-Qx7mK2pL9vR4sT8wZ1aX"],
];
/** Project paths: a piece of the token, and one that is not. */
const IN_TOKEN_PATH = "Qx7mK2pL9vR4";
const NOT_IN_TOKEN_PATH = "Qx7mK2pL9vR5";

let sim: GitLabSim;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startGitLabSim({ dataset: strayProjectsNamed(IN_TOKEN_PATH, NOT_IN_TOKEN_PATH), tokens: { [TOKEN]: { admin: true } } });
  env = { GITLAB_URL: sim.url, GITLAB_TOKEN: TOKEN, WARDEN_POLICY: policyFile(ACME_ONLY) };
});
afterAll(() => sim.close());

describe("no output depends on whether a text is part of the token", { timeout: 60_000 }, () => {
  it.each(PROBES)("warden enforce %s and warden enforce %s answer alike, each quoting its argument", async (inside, outside) => {
    expect(TOKEN.includes(inside) && !TOKEN.includes(outside)).toBe(true);
    const [a, b] = await Promise.all([warden(["enforce", inside], env), warden(["enforce", outside], env)]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`"${inside}"`);
    expect([a.code, a.stdout, a.stderr.replaceAll(inside, "PROBE")]).toEqual([b.code, b.stdout, b.stderr.replaceAll(outside, "PROBE")]);
  });

  it.each(["text", "markdown", "json"])("a project whose path is a piece of the token is named in the %s report like any other", async (format) => {
    const run = await warden(["enforce", "--format", format], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`acme/${IN_TOKEN_PATH}`.replace("/", format === "markdown" ? "\\/" : "/"));
    expect(run.stdout).toContain(`acme/${NOT_IN_TOKEN_PATH}`.replace("/", format === "markdown" ? "\\/" : "/"));
    expect(run.stdout + run.stderr).not.toContain("[REDACTED]");
  });

  it("the whole token, or anyone's token, is masked wherever it is quoted", async () => {
    const someoneElses = "glpat-AbCdEfGhIjKlMnOpQrSt";
    const runs = await Promise.all([TOKEN, someoneElses, `SIE-${someoneElses}`].map((word) => warden(["enforce", word], env)));
    for (const run of runs) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^warden enforce: unexpected argument "\[REDACTED\]"/);
    }
  });
});
