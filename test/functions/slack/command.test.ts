import { describe, expect, it } from "vitest";
import { parseCommand, usage } from "../../../functions/shared/slack/command.ts";

const job = (text: string) => {
  const parsed = parseCommand(text);
  if (parsed.kind !== "job") throw new Error(`expected a job, got ${JSON.stringify(parsed)}`);
  return parsed.request;
};
const error = (text: string) => {
  const parsed = parseCommand(text);
  if (parsed.kind !== "invalid") throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed.error;
};

describe("chat command parser", () => {
  it("reads enforce and workflows, dry run unless --apply", () => {
    expect(job("enforce")).toEqual({ job: "enforce", apply: false });
    expect(job("  enforce   --apply ")).toEqual({ job: "enforce", apply: true });
    expect(job("workflows")).toEqual({ job: "workflows", apply: false });
    expect(job("Workflows --apply")).toEqual({ job: "workflows", apply: true });
  });

  it("reads a dash that a chat client made of a typed -- as --", () => {
    expect(job("enforce \u2014apply")).toEqual({ job: "enforce", apply: true });
    expect(job("workflows \u2013apply")).toEqual({ job: "workflows", apply: true });
  });

  it("reads a pipeline with its project, ref and variables, values kept whole", () => {
    expect(job("pipeline acme/platform/api release/1.2 DEPLOY_ENV=staging DRY_RUN= URL=https://x.example/a=b")).toEqual({
      job: "pipeline",
      project: "acme/platform/api",
      ref: "release/1.2",
      variables: [
        { key: "DEPLOY_ENV", value: "staging" },
        { key: "DRY_RUN", value: "" },
        { key: "URL", value: "https://x.example/a=b" },
      ],
      apply: false,
    });
    expect(job("pipeline acme/mobile/ios main")).toEqual({ job: "pipeline", project: "acme/mobile/ios", ref: "main", variables: [], apply: false });
  });

  it("reads a pipeline's --apply wherever it comes, as the CLI does: without it, a dry run", () => {
    const applying = { job: "pipeline", project: "acme/x", ref: "main", variables: [{ key: "A", value: "1" }], apply: true };
    expect(job("pipeline acme/x main A=1 --apply")).toEqual(applying);
    expect(job("pipeline --apply acme/x main A=1")).toEqual(applying);
    expect(job("pipeline acme/x main A=1 \u2014apply")).toEqual(applying);
  });

  it("undoes Slack's escaping of &, < and >", () => {
    expect(job("pipeline acme/x main Q=a&amp;b&lt;c&gt;")).toMatchObject({ variables: [{ key: "Q", value: "a&b<c>" }] });
  });

  it("answers help, and empty text, with help", () => {
    expect(parseCommand("help")).toEqual({ kind: "help" });
    expect(parseCommand("   ")).toEqual({ kind: "help" });
    expect(usage("/warden-staging")).toMatch(/`\/warden-staging pipeline <project-path> <ref> \[KEY=VALUE …\] \[--apply\]` .*dry run unless --apply/);
  });

  it("refuses unknown commands, options and arguments, saying what is wrong without quoting a word", () => {
    expect(error("deploy prod")).toBe("unknown command: the first word is one of enforce, workflows, pipeline, exempt and help");
    expect(error("enforce --force")).toBe("enforce takes only the option --apply, and 1 other option was given");
    expect(error("workflows now and later")).toBe("workflows takes only --apply, and 3 other words were given");
    expect(error("enforce --apply --apply")).toMatch(/twice/);
    expect(error("pipeline acme/x main --force --now")).toBe("pipeline takes only the option --apply, and 2 other options were given");
    expect(error("pipeline acme/x main --apply --apply")).toMatch(/twice/);
  });

  it("refuses a pipeline without a ref, and malformed or repeated variables, without echoing a name or a value", () => {
    expect(error("pipeline acme/x")).toBe("pipeline needs a project path and a ref");
    expect(error("pipeline")).toBe("pipeline needs a project path and a ref");
    expect(error("pipeline acme/x main A=1 NOVALUE")).toMatch(/; variable 2 \(after the ref\) is not$/);
    const bad = error("pipeline acme/x main 1TOKEN=s3cr3t-value");
    expect(bad).toMatch(/variable 1 \(after the ref\) is not/);
    expect(bad).not.toMatch(/TOKEN|s3cr3t/);
    const twice = error("pipeline acme/x main A=one B=2 A=s3cr3t-two");
    expect(twice).toBe("variable 3 has the name of one before it");
  });

  it("refuses a pipeline's project that is no project path or id, quoting nothing", () => {
    expect(job("pipeline 42 main")).toEqual({ job: "pipeline", project: "42", ref: "main", variables: [], apply: false });
    for (const project of ["x`&lt;!channel&gt;`", "acme/*", "acme//x", "acme/x!y"]) {
      expect(error(`pipeline ${project} main`)).toBe("pipeline's project is a project's full path (GROUP/PROJECT, no wildcards) or its id");
    }
  });

  // Issue 28: a reply that quoted the words would tell, by where lib/redact masks, what the token holds.
  it("no error quotes a word of the command, whatever the word", () => {
    const word = "Qx7mK2pL";
    for (const text of [word, `enforce ${word}`, `workflows --${word}`, `pipeline acme/x main --${word}`, `pipeline acme/x main ${word}`, `pipeline acme/x main ${word}=1 ${word}=2`, `pipeline acme/x ${word}..x`]) {
      expect(error(text)).not.toContain(word);
    }
  });

  it.each(["main..x", "main~1", "a:b", "x.lock", "@", "a\\b", "main@{1}"])("refuses the ref %j as git would, before anything starts", (ref) => {
    expect(error(`pipeline acme/x ${ref} A=1`)).toMatch(/^the ref is not a valid git ref name: /);
  });

  describe("exempt (issue 30.4)", () => {
    it("reads the project, the group, an optional until and the reason as typed, Slack's escaping undone", () => {
      expect(job("exempt acme/app/api partners/x until 2099-12-31 reason Vendor audit — ends with the contract")).toEqual({
        job: "exempt", project: "acme/app/api", group: "partners/x", until: "2099-12-31", reason: "Vendor audit — ends with the contract", apply: true,
      });
      expect(job("Exempt acme/app/api partners/x REASON  two   spaces &lt;!channel&gt; &amp;")).toEqual({ job: "exempt", project: "acme/app/api", group: "partners/x", reason: "two spaces <!channel> &", apply: true });
      // Words 2 and 3 are the paths whatever they say: a group called "reason" is a group.
      expect(job("exempt acme/app/api reason reason why")).toMatchObject({ group: "reason", reason: "why" });
    });

    it.each([
      ["exempt", "exempt needs a project path and a group path"],
      ["exempt acme/app/api", "exempt needs a project path and a group path"],
      ["exempt acme/app/api partners/x", "the reason is missing"],
      ["exempt acme/app/api partners/x reason", "the reason is missing"],
      ["exempt acme/app/api partners/x until", "until needs a date after it"],
      ["exempt acme/app/api partners/x because legacy", "word 4 must be until or reason"],
      ["exempt acme/app/api partners/x until 2099-12-31 because legacy", "word 6 must be reason"],
      ["exempt acme/app/api partners/x --apply reason r", "exempt takes no options"],
      ["exempt acme/app/api partners/x until 2099-02-30 reason r", "word 5 (the date after until) is not a date YYYY-MM-DD"],
      ["exempt acme/app/api partners/x until 31/12/2099 reason r", "word 5 (the date after until) is not a date YYYY-MM-DD"],
      ["exempt acme/app/api partners/x until 2020-01-01 reason r", "word 5 (the date after until) is not in the future"],
      ["exempt acme partners/x reason r", "word 2 (the project path) is not a project's full path"],
      ["exempt acme/app/* partners/x reason r", "word 2 (the project path) is not a project's full path"],
      ["exempt acme/app/api partners/&lt;x&gt; reason r", "word 3 (the group path) is not a group's full path"],
      [`exempt acme/app/api partners/x reason ${"x".repeat(501)}`, "the reason (the words after word 4) must be one line of 1 to 500 characters"],
      [`exempt acme/app/api partners/x until 2099-12-31 reason a\u0007b`, "the reason (the words after word 6) must be one line"],
    ])("refuses %j naming the position", (text, message) => {
      expect(error(text.replace("\\u0007", "\u0007"))).toContain(message);
    });

    it("names every problem at once, quoting no word", () => {
      const word = "Qx7mK2pL";
      const all = error(`exempt ${word} ${word}* until 20${word} reason`);
      expect(all.split("; ")).toHaveLength(4);
      for (const text of [`exempt ${word}`, `exempt ${word}/x* g reason r`, `exempt a/b ${word}* reason r`, `exempt a/b g until ${word} reason r`, `exempt a/b g ${word} reason`, `exempt a/b g until 2099-12-31 ${word}`, `exempt a/b g --${word} reason r`]) {
        expect(error(text)).not.toContain(word);
      }
      expect(all).not.toContain(word);
    });

    it("is in the usage", () => {
      expect(usage()).toContain("`/warden exempt <project-path> <group-path> [until YYYY-MM-DD] reason <text>` propose an exemption as a merge request on the policy repository");
    });
  });
});
