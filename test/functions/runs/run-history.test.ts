import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Readable } from "node:stream";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { registerSecret } from "../../../lib/redact/index.ts";
import { parseRunRef, RunHistoryError, runKey } from "../../../lib/jobs/restore/run-history.ts";
import { runHistory } from "../../../functions/shared/runs/run-history.ts";
import type { AnyReport, RunLabels } from "../../../functions/shared/runs/outcome.ts";

const s3 = mockClient(S3Client);
const BUCKET = "warden-production-runhistory-12345678";
const LABELS: RunLabels = { job: "enforce", trigger: "schedule", stage: "production", correlationId: "c0ffee00-1234-4abc-8def-0123456789ab" };
const REPORT = {
  job: "enforce",
  dryRun: false,
  finishedAt: "2025-01-02T03:04:05.678Z",
  summary: { strays: 1, removed: 1, guard: "ok", complete: true },
  actions: [{ type: "remove-share", kind: "project", projectId: 7, project: "acme/app", groupId: 9, group: "contractors", accessLevel: 30, expiresAt: null, reason: "not allowed", status: "done" }],
  stats: { requests: 3, retries: 0, rateLimited: 0, pages: 1, durationMs: 900 },
  warnings: [],
} as unknown as AnyReport;

beforeEach(() => {
  s3.reset();
  vi.stubEnv("WARDEN_RUN_HISTORY_BUCKET", BUCKET);
});
afterEach(() => vi.unstubAllEnvs());

const history = () => runHistory({ client: new S3Client({ region: "eu-west-1" }) });
/** A GetObject Body as the SDK gives it in Node: a stream (read chunk by chunk). */
const body = (text: string) => Readable.from([Buffer.from(text)]) as never;

describe("runHistory", () => {
  it("stores an applying run's report under runs/<job>/<trigger>/<finishedAt>-<correlation id>.json and says where", async () => {
    s3.on(PutObjectCommand).resolves({});
    const location = await history().store(REPORT, LABELS);
    expect(location).toBe(`s3://${BUCKET}/runs/enforce/schedule/20250102T030405.678Z-${LABELS.correlationId}.json`);
    const [put] = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
    expect(put).toMatchObject({ Bucket: BUCKET, Key: `runs/enforce/schedule/20250102T030405.678Z-${LABELS.correlationId}.json`, ContentType: "application/json" });
    expect(put!.Metadata).toEqual({ trigger: "schedule", "correlation-id": LABELS.correlationId, stage: "production" });
    expect(JSON.parse(String(put!.Body))).toEqual(REPORT);
  });

  it("stored again later (a run's end attempted again) writes the same object, not a second copy", async () => {
    s3.on(PutObjectCommand).resolves({});
    const first = await history().store(REPORT, LABELS);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await history().store(REPORT, LABELS)).toBe(first);
    expect(new Set(s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input.Key)).size).toBe(1);
  });

  it("keeps no dry run: it changed nothing to restore", async () => {
    expect(await history().store({ ...REPORT, dryRun: true }, LABELS)).toBeUndefined();
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it("redacts every string of the stored report", async () => {
    s3.on(PutObjectCommand).resolves({});
    registerSecret("glpat-run-history-secret");
    await history().store({ ...REPORT, warnings: ["GitLab echoed glpat-run-history-secret"] }, LABELS);
    const stored = String(s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Body);
    expect(stored).not.toContain("run-history-secret");
    expect(JSON.parse(stored).warnings).toEqual(["GitLab echoed [REDACTED]"]);
  });

  it("reads a stored run back by its s3:// name", async () => {
    s3.on(GetObjectCommand, { Bucket: BUCKET, Key: "runs/enforce/20250102T030405.678Z-x.json" }).resolves({ Body: body(JSON.stringify(REPORT)) });
    const run = await history().read(`s3://${BUCKET}/runs/enforce/20250102T030405.678Z-x.json`, "enforce");
    expect(run.location).toBe(`s3://${BUCKET}/runs/enforce/20250102T030405.678Z-x.json`);
    expect(JSON.parse(run.text)).toEqual(REPORT);
  });

  it('reads "latest" as the latest sweep (schedule, console or chat), across every page, never a later watch batch', async () => {
    const key = (trigger: string, day: string) => ({ Key: `runs/enforce/${trigger}/202501${day}T030000.000Z-r${day}.json` });
    s3.on(ListObjectsV2Command, { Prefix: "runs/enforce/schedule/" })
      .resolvesOnce({ Contents: [key("schedule", "01"), key("schedule", "03")], IsTruncated: true, NextContinuationToken: "page-2" })
      .resolvesOnce({ Contents: [key("schedule", "05"), key("schedule", "02")], IsTruncated: false });
    s3.on(ListObjectsV2Command, { Prefix: "runs/enforce/console/" }).resolves({ Contents: [key("console", "04")], IsTruncated: false });
    s3.on(ListObjectsV2Command, { Prefix: "runs/enforce/chat/" }).resolves({ IsTruncated: false });
    s3.on(ListObjectsV2Command, { Prefix: "runs/enforce/watch/" }).resolves({ Contents: [key("watch", "06")], IsTruncated: false });
    s3.on(GetObjectCommand).resolves({ Body: body("{}") });
    const run = await history().read("latest", "enforce");
    expect(run).toMatchObject({ location: `s3://${BUCKET}/runs/enforce/schedule/20250105T030000.000Z-r05.json`, chosen: "the latest sweep (trigger schedule)" });
    const listed = s3.commandCalls(ListObjectsV2Command).map((c) => c.args[0].input);
    expect(listed.map((l) => l.Prefix)).toEqual(["runs/enforce/schedule/", "runs/enforce/schedule/", "runs/enforce/console/", "runs/enforce/chat/"]);
    expect(listed[1]).toMatchObject({ ContinuationToken: "page-2" });
    const watch = await history().read("latest:watch", "enforce");
    expect(watch).toMatchObject({ location: `s3://${BUCKET}/runs/enforce/watch/20250106T030000.000Z-r06.json`, chosen: "the latest watch run (trigger watch)" });
  });

  it('says so when there is no run for "latest", or the named one is gone, or the name is not one of the forms', async () => {
    s3.on(ListObjectsV2Command).resolves({ IsTruncated: false });
    await expect(history().read("latest", "workflows")).rejects.toThrow(`no stored workflows run for the latest sweep in s3://${BUCKET}/runs/workflows/schedule/, s3://${BUCKET}/runs/workflows/console/, s3://${BUCKET}/runs/workflows/chat/`);
    s3.on(GetObjectCommand).rejects(new NoSuchKey({ message: "The specified key does not exist.", $metadata: {} }));
    await expect(history().read(`s3://${BUCKET}/runs/enforce/gone.json`, "enforce")).rejects.toThrow(`reading s3://${BUCKET}/runs/enforce/gone.json failed: NoSuchKey`);
    await expect(history().read("runs/enforce/x.json", "enforce")).rejects.toBeInstanceOf(RunHistoryError);
    await expect(history().read("latest:sweep", "enforce")).rejects.toThrow('a stored run is named s3://<bucket>/<key>, "latest" (the latest sweep) or "latest:<trigger>" (schedule, console, chat, watch, event), not "latest:sweep"');
  });
});

describe("run names", () => {
  it("sort by time within a job's trigger, and parse back", () => {
    const keys = ["2025-03-01T00:00:00.000Z", "2025-02-28T23:59:59.999Z", "2025-03-01T00:00:00.001Z"].map((t) => runKey("enforce", "watch", new Date(t), "r"));
    expect([...keys].sort()).toEqual([keys[1], keys[0], keys[2]]);
    expect(parseRunRef(`s3://${BUCKET}/${keys[0]}`)).toEqual({ bucket: BUCKET, key: keys[0] });
  });
});
