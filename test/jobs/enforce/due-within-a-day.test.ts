/**
 * The Slack report's "due within a day" line (lib/jobs/enforce/view.ts) for a share whose notice and
 * follow-up notice jane both closed: "pending" with no open notice (plan.ts afterClose: followedUp), its
 * date counted from the earlier notice. It names that closed notice, not "notice #undefined", and its
 * own line does not say a notice is to be opened (lib/jobs/shares/view.ts).
 */
import { expect, it } from "vitest";
import { renderSlack } from "../../../lib/jobs/render/index.ts";
import { guestWorld, later, noticesOf, run, setIssueState, start } from "../../support/notices-world.ts";

it("a pending share whose notices a person closed is named in Slack by the notice its date counts from, never as #undefined", async () => {
  await start(guestWorld());
  await run({ apply: true });
  const key = "project:100:group:20";
  await setIssueState("jane", noticesOf(key)[0]!.iid, later(1));
  await run({ apply: true, now: later(2) });
  expect(noticesOf(key)).toHaveLength(2);
  await setIssueState("jane", noticesOf(key)[1]!.iid, later(3));

  const report = await run({ apply: true, now: later(7) });
  const share = report.actions.find((a) => a.kind === "project")!;
  expect([share.status, share.notice?.daysLeft, share.notice?.iid]).toEqual(["pending", 1, undefined]);
  const slack = JSON.stringify(renderSlack(report).blocks);
  expect(slack).toContain("project acme/app shared with partners");
  expect(slack).not.toContain("#undefined");
  expect(slack).toContain(`project acme/app shared with partners: counted from closed notice #${noticesOf(key)[0]!.iid}, due 2026-12-07`);
  // The share's own line: no notice will be opened for it, and its date counts from the first.
  expect(slack).not.toContain("notice to open");
  expect(slack).toContain(`no notice open (counted from closed notice #${noticesOf(key)[0]!.iid}), due 2026-12-07`);
});
