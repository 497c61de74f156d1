/**
 * A notices label Warden refuses as one of its own (`warden-share::…`), written with a leading space:
 * labelProblem took it, and GitLab strips a label's spaces (the API's comma-separated labels, as the
 * simulator does), so every notice carried a second warden-share:: label. Its share was then named by
 * none (marker.ts noticeKeyOf: one key label or none), so the next run found no notice of it and opened
 * another, each with a new grace: under onStray notify the share was never removed.
 */
import { describe, expect, it } from "vitest";
import { labelProblem } from "../../lib/policy/labels.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { notifyPolicy } from "../support/policies.ts";
import { later, open, run, start } from "../support/notices-world.ts";

const LABELS = '" warden-share::review"';

describe("a notices label of Warden's own, written with a leading space", () => {
  it.each([" warden-share::x", "  warden::notice", " Warden-Closed::x"])("%j is refused as Warden's own", (name) => {
    expect(labelProblem(name)).toMatch(/is one of Warden's own labels/);
  });

  it("the policy naming one is refused, before any notice is opened with it", async () => {
    const policy = notifyPolicy({ labels: LABELS });
    let refused = false;
    try {
      parsePolicy(policy, "warden.yaml");
    } catch {
      refused = true;
    }
    if (refused) return;
    await start();
    await run({ apply: true, policy });
    const first = open().length;
    await run({ apply: true, policy, now: later(3) });
    // Each run's notices were found again: none opened twice.
    expect(open()).toHaveLength(first);
  });
});
