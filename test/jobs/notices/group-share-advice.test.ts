/**
 * A notice of a group's share (a group shared with a group) told its reader to keep it with `warden exempt
 * --project <the group's path> --group …`; warden exempt takes only a project (GROUP/PROJECT), so the advice
 * was refused for a top-level group ("a project's full path has its group first") and found no project for a
 * subgroup: the one way the notice offered to keep the share did not work while its grace ran out (the
 * second notices review's finding). A group's share is exempted by an entry in the policy's exempt list,
 * which its notice names now; a project's notice gives the command, which warden exempt takes.
 */
import { expect, it } from "vitest";
import { exemptRequestProblems } from "../../../lib/policy/exemption-request.ts";
import { issues, run, start, T0 } from "../../support/notices-world.ts";

it("the notice of a group's share advises an entry in the policy's exempt list; a project's, a warden exempt it accepts", async () => {
  await start();
  await run({ apply: true });
  const ofGroup = issues().find((i) => i.labels.includes("warden-share::group:10:group:20"))!.description ?? "";
  expect(ofGroup).not.toContain("run warden exempt");
  expect(ofGroup).toContain("an entry in gitlab.shares.exempt with group acme, sharedWith partners, an until date and a reason");
  const ofProject = issues().find((i) => i.labels.some((l) => l.startsWith("warden-share::project:")))!.description ?? "";
  const advice = /run warden exempt with \\-\\-project (\S+) \\-\\-group (\S+),/.exec(ofProject)!;
  // As the reader would type it: the Markdown escapes gone.
  const [project, group] = [advice[1]!, advice[2]!].map((s) => s.replace(/\\(.)/g, "$1"));
  expect(exemptRequestProblems({ project, group, reason: "needed" }, T0)).toEqual([]);
});
