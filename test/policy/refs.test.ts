import { describe, expect, it } from "vitest";
import { pipelineRequestProblem, refProblem } from "../../lib/policy/refs.ts";

describe("refProblem: git check-ref-format's rules", () => {
  it.each(["main", "release/1.2", "feature/login-v2", "v1.0.0", "HEAD", "a@b", "deps/@types", "über", "x.locked/y", "a.b/c_d"])("accepts %j", (ref) => {
    expect(refProblem(ref)).toBeUndefined();
  });

  it.each([
    ["", "it is empty"],
    ["@", 'it is "@" alone'],
    ["-x", 'it starts with "-"'],
    ["a b", "a space or a control character"],
    ["a\tb", "a space or a control character"],
    ["a\x1b[2Kb", "a space or a control character"],
    ["a\x7fb", "a space or a control character"],
    ["main~1", "~ ^ : ? * [ \\"],
    ["main^", "~ ^ : ? * [ \\"],
    ["a:b", "~ ^ : ? * [ \\"],
    ["what?", "~ ^ : ? * [ \\"],
    ["rel*", "~ ^ : ? * [ \\"],
    ["a[1]", "~ ^ : ? * [ \\"],
    ["a\\b", "~ ^ : ? * [ \\"],
    ["a..b", 'it contains ".."'],
    ["main@{1}", 'it contains "@{"'],
    ["/main", '"/"'],
    ["feature/", '"/"'],
    ["a//b", '"//"'],
    ["v1.", 'it ends with "."'],
    [".hidden", 'starts with "." or ends with ".lock"'],
    ["x/.y", 'starts with "." or ends with ".lock"'],
    ["x.lock", 'starts with "." or ends with ".lock"'],
    ["x.lock/y", 'starts with "." or ends with ".lock"'],
  ])("refuses %j, saying why", (ref, why) => {
    expect(refProblem(ref)).toContain(why);
    expect(refProblem(ref)).toMatch(/^ref ".*" is not a valid git ref name: /);
  });
});

describe("pipelineRequestProblem", () => {
  it("refuses a variable given twice, naming the key and no value", () => {
    const problem = pipelineRequestProblem("main", [{ key: "A" }, { key: "B" }, { key: "A" }]);
    expect(problem).toBe("variable A is given twice");
  });

  it("names a bad ref first, and accepts a good request", () => {
    expect(pipelineRequestProblem("a..b", [{ key: "A" }, { key: "A" }])).toMatch(/^ref "a\.\.b"/);
    expect(pipelineRequestProblem("main", [{ key: "A" }, { key: "B" }])).toBeUndefined();
  });
});
