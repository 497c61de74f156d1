/**
 * A review of the package as a user runs it (bin/cli/main.ts): `warden help` was taken as `warden --help`, and so `warden help enforce`
 * (as `git help commit`, `npm help install`) printed the list of commands, silently dropping the command
 * asked about, where its options and exit codes were wanted.
 */
import { describe, expect, it } from "vitest";
import { EVENTS_PER_POLL } from "../../lib/jobs/watch/read.ts";
import { warden } from "../support/cli.ts";

describe("warden help COMMAND", () => {
  it("prints that command's help, as warden COMMAND --help does", async () => {
    const asked = await warden(["help", "enforce"], {});
    const direct = await warden(["enforce", "--help"], {});
    expect(direct.stdout).toMatch(/^Usage: warden enforce /);
    expect(asked).toEqual({ code: 0, stdout: direct.stdout, stderr: "" });
  });

  it("a command it does not know is answered as one would be, with the nearest", async () => {
    const asked = await warden(["help", "enfoce"], {});
    expect([asked.code, asked.stderr]).toEqual([1, expect.stringContaining('unknown command "enfoce": did you mean "enforce"?')]);
  });
});

describe("what --help says is what the code does", () => {
  // A review's findings: watch's said 100 events a poll, workflows' that n8n's generation is detected at
  // the start (it is learned from the first change) and that its audit lines are for warden restore (which refuses them).
  it("warden watch --help gives the poll's event limit the code has", async () => {
    const said = /at most ([\d,]+) events a source/.exec((await warden(["watch", "--help"], {})).stdout)?.[1];
    expect(Number(said?.replace(",", ""))).toBe(EVENTS_PER_POLL);
  });

  it("warden workflows --help: n8n's generation learned from the first change; its audit lines no input of warden restore", async () => {
    const help = (await warden(["workflows", "--help"], {})).stdout;
    expect(help).toContain("learned from the first change");
    expect(help).not.toMatch(/--audit-log FILE[^\n]*for warden restore/);
  });
});
