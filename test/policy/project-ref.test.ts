/**
 * A notices project given as digits GitLab numbers no project with: 0, or more digits than any id. The
 * policy was refused, but told to "write it without a leading zero", which `0` and `12345678901234567`
 * have none of: an error must name the cause and the fix (glob.ts projectRefProblem).
 */
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../lib/policy/index.ts";

const notices = (project: string) =>
  `version: 1\ngitlab:\n  scope: { groups: [acme] }\n  shares:\n    allow:\n      - group: "acme/**"\n    onStray: notify\n    grace: 7d\n    notices: { project: ${project} }\n`;

const message = (project: string) => {
  try {
    parsePolicy(notices(project), "warden.yaml");
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe("a notices project id no GitLab project has", () => {
  it.each(["0", '"0"', '"00"'])("%s is refused: ids start at 1, with no word of a leading zero it may lack", (written) => {
    expect(message(written)).toMatch(/gitlab\.shares\.notices\.project: invalid project id "0+": GitLab numbers projects from 1/);
  });

  it("17 digits are refused as too large, not as a leading zero", () => {
    expect(message('"12345678901234567"')).toMatch(/invalid project id "12345678901234567": .*at most 16 digits/);
    expect(message('"12345678901234567"')).not.toMatch(/leading zero/);
  });

  it("a leading zero is still named as such", () => {
    expect(message('"0123"')).toMatch(/GitLab reads digits as the id 123; write it without a leading zero/);
  });
});
