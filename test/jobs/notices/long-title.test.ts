/**
 * A notice for a share whose paths its Maintainer or Owner made long (GitLab allows 255 characters for a
 * path alone, and the title's escaping adds a joiner after each `:` and reference prefix). GitLab refuses an
 * issue title over 255 characters, as the simulator does (400 "is too long"). Before, the notice was
 * refused on every run ("failed"), never opened, so under onStray notify its share was never due and
 * never removed: a Maintainer kept a stray share for good by renaming a project (a review of notices).
 * The title is cut to 255 now (lib/jobs/notices/text.ts noticeTitle); the body names the share in full.
 */
import { expect, it } from "vitest";
import { deletes, issues, later, run, sim, start } from "../../support/notices-world.ts";

/** A project path GitLab allows (at most 255 characters): words joined by dashes, as a long real name would be. */
const LONG_PATH = Array.from({ length: 30 }, (_, i) => `service${i}`).join("-").slice(0, 250);

it("opens a notice for a share of a project with a 250-character path, and removes the share once due", async () => {
  await start();
  sim.renameProject(100, LONG_PATH);
  const first = await run({ apply: true });
  expect(first.actions.find((a) => a.kind === "project")).toMatchObject({ status: "noticed" });
  const notice = issues().find((i) => i.labels.includes("warden-share::project:100:group:20"))!;
  expect(Array.from(notice.title).length).toBeLessThanOrEqual(255);
  expect(notice.description).toContain(LONG_PATH.replaceAll("-", "\\-"));
  await run({ apply: true, now: later(8) });
  expect(deletes()).toContain("DELETE /api/v4/projects/100/share/20");
});
