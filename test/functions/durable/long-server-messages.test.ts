/**
 * A removal step's checkpoint is bounded by what the step records, not only by the shares as planned:
 * each failed removal carries the server's own message (up to 300 characters, lib/http/errors.ts), and
 * messages that do not compress took a step's result past the 256 KB a checkpoint holds after its
 * DELETEs were answered: the execution failed with no report stored. functions/shared/durable/steps.ts
 * cuts what servers wrote in a result too large (each `error`, each warning) until it fits.
 */
import { describe, expect, it, vi } from "vitest";
import type { EnforceReport } from "../../../lib/jobs/index.ts";
import { generateOrganisation } from "../../../sim/gitlab/index.ts";
import { durableWorld, timedRunner } from "../../support/durable-world.ts";
import { EVERYTHING_STRAY } from "../../support/policies.ts";
import { removals } from "../../support/steps.ts";

const BUCKET = "warden-runs";
const REFUSED = 350;

/** acme's projects, each with one share with a group outside acme: all stray. */
function organisation() {
  const { dataset } = generateOrganisation({ projects: 1_300, seed: 3 });
  const outside = dataset.groups.find((g) => !g.full_path.startsWith("acme"))!;
  for (const p of dataset.projects) {
    p.shared_with_groups = [{ group_id: outside.id, group_name: outside.name, group_full_path: outside.full_path, group_access_level: 30, expires_at: null }];
  }
  return dataset;
}

/** 300 characters a proxy (or a hostile GitLab) says, none alike: CJK ideographs at random, which gzip cannot shrink much. */
function words(): string {
  let s = "";
  for (let i = 0; i < 300; i++) s += String.fromCharCode(0x4e00 + Math.floor(Math.random() * 0x5000));
  return s;
}

const world = durableWorld({
  skipTime: true,
  s3: true,
  policy: EVERYTHING_STRAY,
  gitlab: () => ({ dataset: organisation() }),
  env: (w) => ({ WARDEN_REPORT_ONLY: "false", WARDEN_RUN_HISTORY_BUCKET: BUCKET, AWS_ENDPOINT_URL_S3: w.s3.url }),
});

describe("a removal step whose failed removals carry long server messages", () => {
  it("ends with its report, its removals stored for restore, rather than failing after them", async () => {
    // The first REFUSED DELETEs are refused (403), each with words of its own; the rest are removed.
    const faults = Array.from({ length: REFUSED }, () => ({ kind: "status" as const, status: 403, message: words(), route: "DELETE /projects/:id/share/:group_id", times: 1 }));
    world.gitlab.addFaults(...faults);
    vi.resetModules();
    const { handler } = await import("../../../functions/enforce.ts");
    const { runner } = timedRunner<EnforceReport>(handler, 900_000);
    // The local runner throws what the SDK makes of the invocation (Lambda would invoke it again, to meet the same).
    const execution = await runner.run({ payload: { dryRun: false } }).catch((err: unknown) => ({ thrown: String(err).slice(0, 200) }));
    // DELETEs GitLab carried out: those sent, less those refused.
    const removed = removals(world.gitlab) - (faults.length - world.gitlab.pendingFaults());
    expect(removed, "shares were removed").toBeGreaterThan(0);
    const stored = [...world.s3.objects.keys()].filter((k) => k.startsWith(`${BUCKET}/runs/enforce/`));
    if ("thrown" in execution) expect({ thrown: execution.thrown, stored: stored.length }).toEqual({ thrown: undefined, stored: 1 });
    else {
      const status = execution.getStatus();
      expect({ status, error: status === "SUCCEEDED" ? undefined : execution.getError()?.errorMessage?.slice(0, 160), stored: stored.length }).toEqual({ status: "SUCCEEDED", error: undefined, stored: 1 });
    }
    const r = (execution as { getResult(): EnforceReport | undefined }).getResult()!;
    expect(r.summary.removed).toBe(removed);
    // Each refusal's message is cut, and says so (its audit line keeps it whole).
    const refused = r.actions.filter((a) => a.status === "failed");
    expect(refused.length).toBe(REFUSED);
    expect(refused.filter((a) => !/… \(\d+ more characters\)$/.test(a.error ?? ""))).toEqual([]);
  }, 180_000);
});
