/**
 * A review of the package as a user runs it (bin/cli/main.ts): `warden help` was taken as `warden --help`, and so `warden help enforce`
 * (as `git help commit`, `npm help install`) printed the list of commands, silently dropping the command
 * asked about, where its options and exit codes were wanted.
 */
import { describe, expect, it } from "vitest";
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
